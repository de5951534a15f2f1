import type { Etcd3 } from 'etcd3';
import { acquireTxn } from '../../src/operations/acquire.js';
import { nested } from '../../src/operations/etcd-txn.js';
import { BENCH_PREFIX, ownerToken, type Scenario } from './scenario.js';

/** One lease for the whole run, granted before timing starts, as the pool would have one ready. */
async function poolLikeLease(etcd: Etcd3): Promise<string> {
  return (await etcd.leaseClient.leaseGrant({ TTL: 60 })).ID;
}

/**
 * The provider's exact acquire transaction (`acquireTxn`: compare-absent / compare-owner / read holder,
 * put on a lease), sent raw through `kv.txn` without the provider around it. It splits the provider's
 * distance from the plain Txn in two: server cost of the richer shape and lease attach (this row vs
 * raw Txn), and client cost of the provider's own machinery (provider row vs this row).
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
          const res = await etcd.kv.txn(acquireTxn(Buffer.from(`${BENCH_PREFIX}shape/${runId}/${seq}`), Buffer.from(ownerToken(caller)), lease, ownRange(lease)));
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
 * What perfect group commit would send for 64 concurrent acquires: one Txn of `size` nested
 * acquire-shaped sub-transactions on one lease, `callers` such Txns in flight. Its keys/s is the
 * ceiling for the provider at `callers × size` concurrent callers on this cluster.
 */
export function rawAcquireBatch(callers: number, size: number): Scenario {
  return {
    id: `raw-batch-${callers}x${size}`,
    label: `raw Txn of ${size} nested acquire sub-txns`,
    family: 'raw-batch',
    callers,
    keysPerCall: size,
    prepare: async ({ etcd }, runId) => {
      const lease = await poolLikeLease(etcd);
      return {
        op: async (caller, seq) => {
          const owner = Buffer.from(ownerToken(caller));
          const success = Array.from({ length: size }, (_, i) =>
            nested(acquireTxn(Buffer.from(`${BENCH_PREFIX}batch/${runId}/${seq}/${i}`), owner, lease, ownRange(lease))),
          );
          const res = (await etcd.kv.txn({ compare: [], success, failure: [] })) as unknown as {
            responses: Array<{ response_txn?: { succeeded: boolean } }>;
          };
          // Every sub-txn must have taken its fresh key: a lost one would inflate keys/s.
          return res.responses.length === size && res.responses.every((r) => r.response_txn?.succeeded === true);
        },
        cleanup: async () => {
          await etcd.leaseClient.leaseRevoke({ ID: lease });
        },
      };
    },
  };
}

/** The provider compares a key's lease against its own id range; a one-lease range has the same cost. */
function ownRange(lease: string): { lowest: string; highest: string } {
  return { lowest: lease, highest: lease };
}
