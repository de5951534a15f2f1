import { BENCH_PREFIX, type Scenario } from './scenario.js';

/**
 * `etcd3`'s own Lock on a fresh key, acquire then release: what a user would reach for first.
 * One pair costs LeaseGrant + Txn + LeaseRevoke (three consensus rounds) and a keep-alive stream
 * while held; and a loser only learns "failed", never who holds the lock.
 */
export function etcdLock(callers: number): Scenario {
  return {
    id: `etcd-lock-${callers}`,
    label: 'etcd3 Lock acquire + release',
    family: 'etcd-lock',
    callers,
    prepare: async ({ etcd }, runId) => ({
      op: async (_caller, seq) => {
        const lock = etcd.lock(`${BENCH_PREFIX}lock/${runId}/${seq}`);
        await lock.acquire();
        await lock.release();
        return true;
      },
    }),
  };
}
