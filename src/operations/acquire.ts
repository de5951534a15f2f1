import { keyAbsent, nested, nestedOutcome, put, rangeValue, read, valueIs, type TxnOutcome, type TxnRequest } from './etcd-txn.js';

export interface AcquireResult {
  acquired: boolean;
  owner?: string;
  /** Revision that made the caller the holder (decimal string); present when `acquired`. */
  fencingToken?: string;
}

/**
 * If the key is free, take it; else if we already hold it, refresh it; else read the holder.
 *
 * Both "take" and "refresh" write the same bytes with a fresh lease, so the operation is idempotent:
 * a retry after an ambiguous failure whose first attempt committed lands in the refresh branch and
 * reports the success that really happened. The holder is read in the same transaction as the compare,
 * so a loser learns who beat it without a second round trip that could race.
 */
export function acquireTxn(key: Buffer, owner: string, lease: string): TxnRequest {
  return {
    compare: [keyAbsent(key)],
    success: [put(key, owner, lease)],
    failure: [
      nested({
        compare: [valueIs(key, owner)],
        success: [put(key, owner, lease)],
        failure: [read(key)],
      }),
    ],
  };
}

export function decodeAcquire(outcome: TxnOutcome, owner: string): AcquireResult {
  if (outcome.succeeded) return { acquired: true, owner, fencingToken: outcome.revision };
  const inner = nestedOutcome(outcome);
  if (inner.succeeded) return { acquired: true, owner, fencingToken: outcome.revision };
  const holder = rangeValue(inner);
  // The key existed when the compare ran (same transaction), so a holder is always read here.
  return { acquired: false, owner: holder ? holder.value.toString('utf8') : undefined };
}
