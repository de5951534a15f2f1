/**
 * The kit's negative control on a real system that loses leases. Two owners contend for keys through a lease written
 * the way Mastra's Redis backend writes it (SET NX PX, Lua compare-and-set), on a Redis primary with one replica.
 * The replication link stalls (a fault proxy holds its bytes), an owner takes a new key on the primary (acknowledged),
 * the primary dies and the replica is promoted: asynchronous replication never sent that SET, so the other owner takes
 * the key too while the first still believes it holds it. `checkLeaseHistory` must report that overlap. The same
 * faults on this package — a follower's links held (blackhole), the leader killed — must report none: etcd
 * acknowledges only what a quorum stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdLeaseProvider } from '../../src/provider.js';
import { checkLeaseHistory } from '../../src/testing/check-lease-history.js';
import { recordLeaseCalls } from '../../src/testing/record-lease-calls.js';
import { useEtcdCluster } from '../../src/testing/vitest.js';
import type { RecordableProvider } from '../../safety-checker/recorder.js';
import type { RecordedOp } from '../../safety-checker/types.js';
import { waitFor } from '../support/wait.js';
import { answeredSince, contend } from './support/contention.js';
import { RedisLeaseProvider } from './support/redis-lease-provider.js';
import { ReplicatedRedis } from './support/redis-replicated.js';

const etcd = useEtcdCluster({ beforeAll, afterAll });
const TTL_MS = 6000;
const WORKLOAD = { ttlMs: TTL_MS, intervalMs: 100, renewEveryMs: TTL_MS / 3 };
const OWNERS = ['worker-a', 'worker-b'];
const NEW_KEY = 'lease-taken-after-the-stall';

/** What the scenario needs of a replicated store: a standby to stall, and a failover to it. */
interface Replicated {
  providerFor(owner: string): RecordableProvider & { close(): Promise<void> };
  stallStandby(): Promise<void>;
  failover(): Promise<void>;
}

/**
 * Owners contend; the standby stalls; an owner takes NEW_KEY (acknowledged); right after that grant returns the
 * failover runs; the run ends once every owner has had 30 calls answered after it.
 */
async function stallThenFailover(system: Replicated): Promise<RecordedOp[]> {
  const providers = OWNERS.map((owner) => ({ owner, provider: recordLeaseCalls(system.providerFor(owner), { client: owner }) }));
  const history = () => providers.flatMap((p) => p.provider.history);
  const keys = ['lease-0', 'lease-1'];
  const run = contend(new Map(providers.map((p) => [p.owner, p.provider])), keys, WORKLOAD);
  try {
    await waitFor('both keys held', () => keys.every((k) => history().some((op) => op.key === k && op.outcome === 'ok')), { timeoutMs: 15_000 });
    await system.stallStandby();
    keys.push(NEW_KEY);
    await waitFor(`${NEW_KEY} acquired`, () => history().some((op) => op.key === NEW_KEY && op.outcome === 'ok'), { timeoutMs: 15_000, intervalMs: 5 });
    const failoverAt = performance.timeOrigin + performance.now();
    await system.failover();
    await waitFor('30 answered calls per owner after the failover', () => providers.every((p) => answeredSince(p.provider.history, failoverAt) >= 30), {
      timeoutMs: 30_000,
    });
  } finally {
    await run.stop();
    await Promise.all(providers.map((p) => p.provider.close()));
  }
  return history();
}

describe('the lease checker on a failover', () => {
  it('reports the overlap a Redis failover causes: the promoted replica never got an acknowledged SET', async () => {
    const redis = await ReplicatedRedis.start();
    try {
      const history = await stallThenFailover({
        providerFor: () => new RedisLeaseProvider(() => redis.primaryPort),
        stallStandby: async () => redis.stallReplication(),
        failover: () => redis.failover(),
      });
      const verdict = checkLeaseHistory(history);
      console.info(`Redis primary + replica, replication stalled, primary killed, replica promoted:\n${verdict.report}`);
      expect(verdict.overlaps.map((v) => v.key)).toContain(NEW_KEY);
      const overlap = verdict.overlaps.find((v) => v.key === NEW_KEY)!;
      expect(new Set([overlap.first.owner, overlap.second.owner])).toEqual(new Set(OWNERS));
      expect(verdict.report).toMatch(new RegExp(`OVERLAP on key "${NEW_KEY}": owners "worker-[ab]" and "worker-[ab]" both held it for \\d+ ms`));
    } finally {
      await redis.stop();
    }
  });

  it('reports no overlap and no fencing violation for this package under the same faults: a follower cut off, the leader killed', async () => {
    const { cluster } = etcd;
    const leader = await cluster.leader();
    const follower = (leader + 1) % cluster.size;
    const prefix = `failover-control/${process.pid}/`;
    const history = await stallThenFailover({
      providerFor: () => new EtcdLeaseProvider({ hosts: cluster.endpoints(), prefix }),
      stallStandby: () => cluster.blackhole(follower),
      failover: async () => {
        await cluster.kill(leader);
        await cluster.heal(follower);
      },
    });
    await cluster.restart(leader);
    const verdict = checkLeaseHistory(history);
    console.info(`etcd, 3 members, follower ${follower} cut off, leader ${leader} killed:\n${verdict.report}`);
    expect(verdict.overlaps).toEqual([]);
    expect(verdict.fencing).toEqual([]);
    expect(verdict.calls.total - verdict.calls.errors).toBeGreaterThan(60);
  });
});
