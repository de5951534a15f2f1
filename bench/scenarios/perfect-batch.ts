import type { Etcd3 } from 'etcd3';
import { nested, type TxnRequest } from '../../src/operations/etcd-txn.js';
import { BENCH_PREFIX, ownerToken, type Family, type Scenario } from './scenario.js';

/** One lease for the whole run, granted before timing starts, as the pool would have one ready. */
export async function poolLikeLease(etcd: Etcd3): Promise<string> {
  return (await etcd.leaseClient.leaseGrant({ TTL: 60 })).ID;
}

export interface PerfectBatchShape {
  readonly id: string;
  readonly label: string;
  readonly family: Family;
  /** Distinguishes its keys from other scenarios' under BENCH_PREFIX. */
  readonly keyPart: string;
  /** The acquire sub-transaction of one fresh key for `owner` on `lease`. */
  subTxn(key: Buffer, owner: Buffer, lease: string): TxnRequest;
}

/**
 * What perfect group commit would send: one Txn of `size` nested acquire sub-transactions on one lease, `callers`
 * such Txns in flight, built by hand with nothing around them. Its keys/s is the ceiling at `callers × size`
 * concurrent acquires of that shape on this cluster, and its CPU per key the least a client spends on them. Sent to
 * a member etcd3 picks at random, or with `toLeader` to the leader alone (the route the provider takes).
 */
export function perfectBatch(shape: PerfectBatchShape, callers: number, size: number, toLeader = false): Scenario {
  return {
    id: `${shape.id}${toLeader ? '-leader' : ''}-${callers}x${size}`,
    label: toLeader ? `${shape.label}, to the leader` : shape.label,
    family: toLeader ? `${shape.family}-leader` as Family : shape.family,
    callers,
    keysPerCall: size,
    prepare: async (clients, runId) => {
      const etcd = toLeader ? clients.leader : clients.etcd;
      const lease = await poolLikeLease(etcd);
      return {
        op: async (caller, seq) => {
          const owner = Buffer.from(ownerToken(caller));
          const success = Array.from({ length: size }, (_, i) => nested(shape.subTxn(Buffer.from(`${BENCH_PREFIX}${shape.keyPart}/${runId}/${seq}/${i}`), owner, lease)));
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
