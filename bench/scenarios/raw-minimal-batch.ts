import { keyAbsent, nested, put, read, valueIs, type TxnRequest } from '../../src/operations/etcd-txn.js';
import { perfectBatch } from './perfect-batch.js';
import type { Scenario } from './scenario.js';

/**
 * The smallest transaction that does an acquire's job at all, whatever the provider sends: take a free key on a
 * lease, else refresh it for its own owner, else read the holder so a loser learns who it is in the same round trip.
 *
 *     If (CREATE == 0)  put(owner, lease)
 *     Else If (VALUE == owner)  put(owner, lease)
 *          Else  range(key)
 *
 * (Without the lease-ordering rules a provider needs: it is the job's floor, not a correct shape for every case.)
 */
export function minimalAcquireTxn(key: Buffer, owner: Buffer, lease: string): TxnRequest {
  return {
    compare: [keyAbsent(key)],
    success: [put(key, owner, lease)],
    failure: [nested({ compare: [valueIs(key, owner)], success: [put(key, owner, lease)], failure: [read(key)] })],
  };
}

/**
 * Perfect group commit of the minimal acquire (perfect-batch.ts): the ceiling for any acquire at `callers × size`
 * concurrent callers on this cluster, and the least client CPU per key; the provider's targets are stated against it.
 */
export function rawMinimalBatch(callers: number, size: number, toLeader = false): Scenario {
  return perfectBatch(
    { id: 'raw-minimal-batch', label: `raw Txn of ${size} nested minimal acquire sub-txns`, family: 'raw-minimal-batch', keyPart: 'minimal', subTxn: minimalAcquireTxn },
    callers,
    size,
    toLeader,
  );
}
