import { describe, expect, it } from 'vitest';
import type { LeaseEvent } from '../../src/index.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';

const etcd = useEtcdCluster();
const LONG_TTL = 30_000;

describe('waitForLease across a leader kill', () => {
  it('waiters survive the leader being killed and restarted, and wake on the release', async () => {
    const { cluster } = etcd;
    const prefix = etcd.uniquePrefix();
    const leader = await cluster.leader();
    const followers = Array.from({ length: cluster.size }, (_, i) => i).filter((i) => i !== leader);

    // The holder talks to the followers only, so it can release while the leader is down.
    const holder = etcd.provider({ prefix, hosts: followers.map((i) => cluster.endpoint(i)) });
    // One waiter can reach every member: its watch, wherever it was, must carry on through a survivor.
    // The other can reach the leader only: its watch must come back when that member does.
    const events: LeaseEvent[] = [];
    const onEvent = (e: LeaseEvent) => events.push(e);
    const anywhere = etcd.provider({ prefix, onEvent });
    const pinned = etcd.provider({ prefix, onEvent, hosts: [cluster.endpoint(leader)] });
    const contended = (owner: string) => events.filter((e) => e.type === 'contended' && e.owner === owner).length;

    await holder.acquireLease('any', 'A', LONG_TTL);
    await holder.acquireLease('pin', 'A', LONG_TTL);
    const waitAnywhere = anywhere.waitForLease('any', 'W-any', LONG_TTL, { timeoutMs: 60_000 });
    const waitPinned = pinned.waitForLease('pin', 'W-pin', LONG_TTL, { timeoutMs: 60_000 });
    await waitFor('both waiters on their watches', () => (contended('W-any') >= 2 && contended('W-pin') >= 2 ? true : undefined), { timeoutMs: 10_000 });

    await cluster.kill(leader);
    try {
      await holder.releaseLease('any', 'A'); // needs the new leader: returns once the cluster has one
      const releasedAt = performance.now();
      await expect(waitAnywhere).resolves.toMatchObject({ acquired: true, owner: 'W-any' });
      // Below the 4 s minimum of the safety-net re-check: a watch (reconnected if it was on the dead member) woke it.
      expect(performance.now() - releasedAt).toBeLessThan(4000);

      await holder.releaseLease('pin', 'A');
    } finally {
      await cluster.restart(leader);
    }
    const restartedAt = performance.now();
    await expect(waitPinned).resolves.toMatchObject({ acquired: true, owner: 'W-pin' });
    // etcd3 re-establishes the watch with backoff; the waiter's own re-check and error backoff bound the rest.
    expect(performance.now() - restartedAt).toBeLessThan(10_000);
    expect((await holder.getLease('pin'))?.owner).toBe('W-pin');
    expect((await holder.getLease('any'))?.owner).toBe('W-any');
  });
});
