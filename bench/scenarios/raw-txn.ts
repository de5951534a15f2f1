import { CompareResult, CompareTarget } from 'etcd3';
import { BENCH_PREFIX, ownerToken, type Scenario } from './scenario.js';

/**
 * The reference point: one plain etcd Txn, create-if-absent on a fresh key, no lease.
 * It is the cheapest atomic claim etcd can do (one consensus round), so the provider's targets are
 * stated as ratios to it. Sent through `kv.txn` directly, as the provider does, so the comparison is
 * about transactions, not the builder; to a member etcd3 picks at random, as a user's raw Txn goes, or (`toLeader`)
 * to the leader alone, where the provider sends its own.
 */
export function rawTxn(callers: number, toLeader = false): Scenario {
  return {
    id: toLeader ? `raw-txn-leader-${callers}` : `raw-txn-${callers}`,
    label: toLeader ? 'raw Txn create-if-absent, to the leader' : 'raw Txn create-if-absent',
    family: toLeader ? 'raw-txn-leader' : 'raw-txn',
    callers,
    prepare: async (clients, runId) => ({
      op: async (caller, seq) => {
        const key = Buffer.from(`${BENCH_PREFIX}raw/${runId}/${seq}`);
        const res = await (toLeader ? clients.leader : clients.etcd).kv.txn({
          compare: [{ key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
          success: [{ request_put: { key, value: Buffer.from(ownerToken(caller)) } }],
          failure: [],
        });
        return res.succeeded;
      },
    }),
  };
}
