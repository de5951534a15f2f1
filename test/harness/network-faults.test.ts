import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.js';
import { startCluster, type TestCluster } from './cluster.js';
import { plainClients, within } from './plain-client.js';

/**
 * The network faults the safety and chaos suites rely on, each shown to have its effect on real etcd
 * members: a cut link whose requests land late, a leader isolated from its peers with clients attached,
 * a one-way partition, latency with jitter, a slow client link. One cluster; each test leaves it healthy.
 */


describe('network faults on a real cluster', () => {
  let cluster: TestCluster;
  const { clientFor, closeAll } = plainClients();
  const others = (i: number) => cluster.endpoints().filter((_, j) => j !== i);

  beforeAll(async () => {
    cluster = await startCluster();
  });
  beforeEach(async () => {
    await cluster.waitHealthy(20_000);
  });
  afterEach(async () => {
    closeAll();
    await cluster.healAll();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('a cut client link holds a request, refuses new connections fast, and delivers the request on heal after its client is gone', async () => {
    const member = 0;
    const cut = clientFor(cluster.endpoint(member));
    await cut.get('warm-up'); // the request must travel on an established connection
    await cluster.cutClient(member);
    await expect(cut.put('late').value('landed').options(within(1_000))).rejects.toThrow();

    const refusedBefore = cluster.clientConnections(member).refused;
    const started = performance.now();
    await expect(clientFor(cluster.endpoint(member)).get('x').options(within(2_000))).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(cluster.clientConnections(member).refused).toBeGreaterThan(refusedBefore);

    cut.close(); // its caller is long gone when the request lands
    const reader = clientFor(others(member));
    expect(await reader.get('late').string()).toBeNull();
    await cluster.heal(member);
    await waitFor('the held put to land', async () => (await reader.get('late').string()) === 'landed', { timeoutMs: 5_000, intervalMs: 50 });
    expect(cluster.clientConnections(member).lateDeliveries).toBe(1);
    await clientFor(cluster.endpoint(member)).put('after-heal').value('v'); // and the link works again
  });

  it('an isolated leader loses its role while its clients stay attached; their writes no longer commit', async () => {
    const oldLeader = await cluster.leader();
    const attached = clientFor(cluster.endpoint(oldLeader));
    await attached.get('warm-up');
    // Counted per member over the whole file: an earlier test may have cut this same member's link.
    const refusedBefore = cluster.clientConnections(oldLeader).refused;
    await cluster.isolate(oldLeader);
    const newLeader = await waitFor('a new leader among the others', async () => {
      const leader = await cluster.leader();
      return leader !== oldLeader ? leader : undefined;
    }, { timeoutMs: 15_000 });
    await clientFor(cluster.endpoint(newLeader)).put('while-isolated').value('v');
    await expect(attached.put('through-old-leader').value('x').options(within(1_500))).rejects.toThrow();
    expect(cluster.clientConnections(oldLeader).refused).toBe(refusedBefore);

    await cluster.heal(oldLeader);
    await cluster.waitHealthy();
    expect(await clientFor(cluster.endpoint(oldLeader)).get('while-isolated').string()).toBe('v');
  });

  it('holding a follower\u2019s messages to the leader keeps the leader\u2019s reaching it, but stops its proposals', async () => {
    const leader = await cluster.leader();
    const follower = (leader + 1) % cluster.size;
    const throughFollower = clientFor(cluster.endpoint(follower));
    await throughFollower.get('warm-up');
    await cluster.holdOneWay(follower, leader);
    await clientFor(cluster.endpoint(leader)).put('from-leader').value('v1');
    // Serializable: the follower answers from its own copy, so this shows what it received.
    await waitFor('the follower to receive the leader\u2019s write', async () => (await throughFollower.get('from-leader').serializable(true).string()) === 'v1', {
      timeoutMs: 5_000,
      intervalMs: 50,
    });
    // A proposal made through the follower must travel to the leader: it is held.
    await expect(throughFollower.put('from-follower').value('v2').options(within(1_500))).rejects.toThrow();
    expect(await cluster.leader()).toBe(leader);
  });

  it('holding the leader\u2019s messages to a follower leaves that follower behind while the others commit', async () => {
    const leader = await cluster.leader();
    const follower = (leader + 1) % cluster.size;
    const throughFollower = clientFor(cluster.endpoint(follower));
    await throughFollower.put('lagging').value('old');
    await cluster.holdOneWay(leader, follower);
    await clientFor(cluster.endpoint(leader)).put('lagging').value('new');
    await new Promise((r) => setTimeout(r, 500)); // time enough to replicate, had the link been open
    expect(await throughFollower.get('lagging').serializable(true).string()).toBe('old');

    await cluster.heal(follower);
    await waitFor('the follower to catch up', async () => (await throughFollower.get('lagging').serializable(true).string()) === 'new', {
      timeoutMs: 15_000,
      intervalMs: 100,
    });
  });

  it('latency with jitter delays every round trip through a member by a varying amount', async () => {
    const member = (await cluster.leader() + 1) % cluster.size;
    const client = clientFor(cluster.endpoint(member));
    await client.get('warm-up');
    await cluster.setLatency(member, 50, 100);
    const trips: number[] = [];
    for (let i = 0; i < 8; i++) {
      const started = performance.now();
      await client.get('slow').serializable(true).options(within(5_000));
      trips.push(performance.now() - started);
    }
    expect(Math.min(...trips)).toBeGreaterThanOrEqual(99);
    expect(Math.max(...trips) - Math.min(...trips)).toBeGreaterThan(20);
  });

  it('a slow client link delays the member\u2019s clients but not its raft traffic: no election, no new term', async () => {
    const leader = await cluster.leader();
    const termBefore = (await cluster.status(leader))!.raftTerm;
    const member = (leader + 1) % cluster.size;
    const client = clientFor(cluster.endpoint(member));
    await client.get('warm-up');
    await cluster.setClientLatency(member, 1500);
    const started = performance.now();
    await client.get('slow').serializable(true).options(within(10_000));
    expect(performance.now() - started).toBeGreaterThanOrEqual(3_000);
    expect(await cluster.leader()).toBe(leader);
    expect((await cluster.status(member))!.raftTerm).toBe(termBefore);
  });
});
