import { acquireTxn } from '../../src/operations/acquire.js';
import { perfectBatch, poolLikeLease } from './perfect-batch.js';
import { BENCH_PREFIX, ownerToken, type Scenario } from './scenario.js';

/**
 * The provider's exact acquire transaction (`acquireTxn`), sent raw through `kv.txn` without the provider around it.
 * It splits the provider's distance from the plain Txn in two: server cost of the shape and lease attach (this row
 * vs raw Txn), and client cost of the provider's own machinery (provider row vs this row).
 */
export function rawAcquireShape(callers: number): Scenario {
  return {
    id: `raw-acquire-shape-${callers}`,
    label: "raw Txn, provider's acquire shape + lease",
    family: 'raw-acquire-shape',
    callers,
    prepare: async ({ etcd }, runId) => {
      const lease = await poolLikeLease(etcd);
      return {
        op: async (caller, seq) => {
          const res = await etcd.kv.txn(acquireTxn(Buffer.from(`${BENCH_PREFIX}shape/${runId}/${seq}`), Buffer.from(ownerToken(caller)), lease));
          return res.succeeded;
        },
        cleanup: async () => {
          await etcd.leaseClient.leaseRevoke({ ID: lease });
        },
      };
    },
  };
}

/**
 * Perfect group commit of the provider's own acquire transaction (perfect-batch.ts): a second reference beside the
 * minimal batch (raw-minimal-batch.ts); the distance between the two is what the provider's shape costs etcd and the
 * encoder before any client machinery.
 */
export function rawAcquireBatch(callers: number, size: number): Scenario {
  return perfectBatch(
    {
      id: 'raw-batch',
      label: `raw Txn of ${size} nested provider-shape acquire sub-txns`,
      family: 'raw-batch',
      keyPart: 'batch',
      subTxn: acquireTxn,
    },
    callers,
    size,
  );
}
