import type { Etcd3 } from 'etcd3';
import { BENCH_PREFIX } from './scenarios/scenario.js';

/**
 * Brings etcd back to the same state after every scenario run, outside the timed window:
 * every benchmark key deleted and the history compacted.
 *
 * Without it each run would start on a bigger keyspace and MVCC history than the one before (a full
 * run writes millions of revisions), so later rounds — and whichever scenario happens to come late
 * in a round — would pay for earlier ones. `physical: true` waits until the compaction is applied,
 * so its disk work does not land in the next measurement either.
 */
export class EtcdReset {
  /** etcd refuses to compact at or below an already compacted revision (a run that wrote nothing). */
  private compacted = 0n;

  constructor(private readonly etcd: Etcd3) {}

  async run(): Promise<{ deleted: number; ms: number }> {
    const started = performance.now();
    const res = await this.etcd.delete().prefix(BENCH_PREFIX).exec();
    const revision = BigInt(res.header.revision);
    if (revision > this.compacted) {
      await this.etcd.kv.compact({ revision: res.header.revision, physical: true });
      this.compacted = revision;
    }
    return { deleted: Number(res.deleted), ms: performance.now() - started };
  }
}

/** Revokes every live etcd lease (the benchmark owns the cluster): the lease count starts from zero. */
export async function revokeAllLeases(etcd: Etcd3): Promise<number> {
  const { leases } = await etcd.leaseClient.leaseLeases();
  for (let i = 0; i < leases.length; i += 32) {
    await Promise.all(leases.slice(i, i + 32).map(({ ID }) => etcd.leaseClient.leaseRevoke({ ID }).catch(() => {})));
  }
  return leases.length;
}
