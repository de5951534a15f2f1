import { CompareResult, CompareTarget } from 'etcd3';
import { BENCH_PREFIX, ownerToken, type Scenario } from './scenario.js';

/**
 * The reference point: one plain etcd Txn, create-if-absent on a fresh key, no lease.
 * It is the cheapest atomic claim etcd can do (one consensus round), so the provider's targets are
 * stated as ratios to it. Sent through `kv.txn` directly, as the provider does, so the comparison is
 * about transactions, not the builder.
 */
export function rawTxn(callers: number): Scenario {
  return {
    id: `raw-txn-${callers}`,
    label: 'raw Txn create-if-absent',
    family: 'raw-txn',
    callers,
    prepare: async ({ etcd }, runId) => ({
      op: async (caller, seq) => {
        const key = Buffer.from(`${BENCH_PREFIX}raw/${runId}/${seq}`);
        const res = await etcd.kv.txn({
          compare: [{ key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
          success: [{ request_put: { key, value: Buffer.from(ownerToken(caller)) } }],
          failure: [],
        });
        return res.succeeded;
      },
    }),
  };
}
