import { GRPCDeadlineExceededError } from 'etcd3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.js';
import { startCluster, type TestCluster } from './cluster.js';
import { plainClients, within } from './plain-client.js';

/**
 * Exercises the test cluster against real etcd members, on whichever driver the run chose (processes, or
 * containers: kill and restart on the same data dir, pause): each fault the harness offers must have the
 * effect on etcd that chaos tests will rely on. The tests share one cluster (starting one costs seconds)
 * and each leaves it healthy; a beforeEach checks that.
 */

const CLUSTER_TEST_TIMEOUT_MS = 60_000;


describe('cluster harness', () => {
  let cluster: TestCluster;
  const { clientFor, closeAll } = plainClients();
  /** The leader and one of its followers. */
  const leaderAndFollower = async () => {
    const leader = await cluster.leader();
    const follower = (leader + 1) % cluster.size;
    return { leader, follower };
  };

  beforeAll(async () => {
    cluster = await startCluster();
  }, CLUSTER_TEST_TIMEOUT_MS);
  beforeEach(async () => {
    await cluster.waitHealthy(20_000);
  }, CLUSTER_TEST_TIMEOUT_MS);
  afterEach(() => {
    closeAll();
  });
  afterAll(async () => {
    await cluster?.stop();
  }, CLUSTER_TEST_TIMEOUT_MS);

  it('a value written through one member is read back through every member', { timeout: CLUSTER_TEST_TIMEOUT_MS }, async () => {
    expect(cluster.endpoints()).toHaveLength(3);
    await clientFor(cluster.endpoint(0)).put('basic').value('v1');
    for (const endpoint of cluster.endpoints()) {
      expect(await clientFor(endpoint).get('basic').string()).toBe('v1');
    }
    expect(await clientFor(cluster.endpoints()).get('basic').string()).toBe('v1');
  });

  it('killing the leader elects a new one; the restarted member rejoins and catches up', { timeout: CLUSTER_TEST_TIMEOUT_MS }, async () => {
    const oldLeader = await cluster.leader();
    await cluster.kill(oldLeader);
    const newLeader = await cluster.leader(15_000);
    expect(newLeader).not.toBe(oldLeader);
    await clientFor(cluster.endpoint(newLeader)).put('after-kill').value('survivors');

    await cluster.restart(oldLeader);
    await cluster.waitHealthy();
    expect(await clientFor(cluster.endpoint(oldLeader)).get('after-kill').string()).toBe('survivors');
  });

  it('a paused member stalls its endpoint while the others serve; it catches up on resume', { timeout: CLUSTER_TEST_TIMEOUT_MS }, async () => {
    const { leader, follower } = await leaderAndFollower();
    await cluster.pause(follower);
    try {
      await expect(clientFor(cluster.endpoint(follower)).get('x').options(within(1_000))).rejects.toBeInstanceOf(
        GRPCDeadlineExceededError,
      );
      await clientFor(cluster.endpoint(leader)).put('during-pause').value('v');
    } finally {
      await cluster.resume(follower);
    }
    await cluster.waitHealthy();
    expect(await clientFor(cluster.endpoint(follower)).get('during-pause').string()).toBe('v');
  });

  it('a blackholed follower is cut off from clients and peers, and rejoins after heal', { timeout: CLUSTER_TEST_TIMEOUT_MS }, async () => {
    const { leader, follower } = await leaderAndFollower();
    const throughFollower = clientFor(cluster.endpoint(follower));
    const throughLeader = clientFor(cluster.endpoint(leader));
    await throughFollower.get('warm-up'); // the stall must hit an established connection
    await cluster.blackhole(follower);
    try {
      await expect(throughFollower.put('blackholed').value('lost').options(within(1_500))).rejects.toBeInstanceOf(
        GRPCDeadlineExceededError,
      );
      await throughLeader.put('while-cut-off').value('v');
      // Proof that the cut is two-way: the follower itself (asked on its own port) stops knowing a leader
      // once no heartbeat has reached it for an election timeout (1 s). Had the connections it dialled
      // itself stayed open, heartbeats would still arrive and it would keep its leader. Whether it then
      // campaigns with a higher term (etcd 3.4) or only pre-votes (3.5) is the version's business.
      await waitFor('the cut-off follower to lose its leader', async () => (await cluster.knowsLeader(follower)) === false, {
        timeoutMs: 10_000,
        intervalMs: 100,
      });
      // Health is probed on the member's own port, so only the peer partition can fail it.
      await expect(cluster.waitHealthy(1_000)).rejects.toThrow(/timed out/);
    } finally {
      await cluster.heal(follower);
    }
    await cluster.waitHealthy();
    expect(await cluster.knowsLeader(follower)).toBe(true);
    expect(await clientFor(cluster.endpoint(follower)).get('while-cut-off').string()).toBe('v');
  });

  it('with responses dropped a put commits but its caller times out', { timeout: CLUSTER_TEST_TIMEOUT_MS }, async () => {
    const { leader, follower } = await leaderAndFollower();
    const throughFollower = clientFor(cluster.endpoint(follower));
    await throughFollower.get('warm-up');
    await cluster.dropResponses(follower, true);
    try {
      await expect(throughFollower.put('unacknowledged').value('landed').options(within(1_500))).rejects.toBeInstanceOf(
        GRPCDeadlineExceededError,
      );
      expect(await clientFor(cluster.endpoint(leader)).get('unacknowledged').string()).toBe('landed');
    } finally {
      await cluster.dropResponses(follower, false);
    }
    // The corrupted connection was reset; a new one through the same proxy works.
    expect(await clientFor(cluster.endpoint(follower)).get('unacknowledged').string()).toBe('landed');
  });

  it('latency on a member delays every round trip through its endpoint', { timeout: CLUSTER_TEST_TIMEOUT_MS }, async () => {
    const { follower } = await leaderAndFollower();
    const throughFollower = clientFor(cluster.endpoint(follower));
    await throughFollower.get('warm-up');
    await cluster.setLatency(follower, 150);
    try {
      const started = Date.now();
      await throughFollower.get('slow').options(within(5_000));
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    } finally {
      await cluster.heal(follower);
    }
    const started = Date.now();
    await throughFollower.get('fast').options(within(5_000));
    expect(Date.now() - started).toBeLessThan(300);
  });

  it('stop is idempotent and leaves nothing serving', { timeout: CLUSTER_TEST_TIMEOUT_MS }, async () => {
    const extra = await startCluster({ size: 1 });
    const client = clientFor(extra.endpoint(0));
    await client.put('single').value('v');
    await Promise.all([extra.stop(), extra.stop()]);
    await extra.stop();
    await expect(client.get('single').options(within(1_000))).rejects.toThrow();
  });
});
