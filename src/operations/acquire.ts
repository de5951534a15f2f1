import { keyAbsent, nested, nestedOutcome, put, type KeyValue, type TxnOutcome, type TxnRequest } from './etcd-txn.js';
import { decodeRefresh, refreshOwnTxn, type OwnLeaseIds } from './refresh-own.js';

/** How an acquire transaction ended. */
export type AcquireOutcome =
  /** `value` now holds the key (taken, or refreshed because it already did), written at `revision`. */
  | { kind: 'written'; revision: string }
  /** `value` holds the key on a lease this provider did not mint: the provider settles it by the lease's TTL. */
  | { kind: 'foreign'; kv: KeyValue }
  /** Someone else holds it; `holder` was read in the same transaction. */
  | { kind: 'held'; holder?: KeyValue };

/**
 * If the key is free, take it; else if `value` already holds it, refresh it (refresh-own.ts: never onto an
 * earlier-ending lease); else read the holder.
 *
 * Idempotent: a retry after an ambiguous failure whose first attempt committed lands in the refresh branch and
 * reports the success that really happened. The holder is read in the same transaction as the compares, so a
 * loser learns who beat it without a second round trip that could race.
 */
export function acquireTxn(key: Buffer, value: Buffer, lease: string, own: OwnLeaseIds): TxnRequest {
  return {
    compare: [keyAbsent(key)],
    success: [put(key, value, lease)],
    failure: [nested(refreshOwnTxn(key, value, lease, own))],
  };
}

export function decodeAcquire(outcome: TxnOutcome, value: Buffer): AcquireOutcome {
  if (outcome.succeeded) return { kind: 'written', revision: outcome.revision };
  const refresh = decodeRefresh(nestedOutcome(outcome), value);
  if (refresh.kind !== 'not-held') return refresh;
  // The key existed when the first compare ran (same transaction), so a holder is always read here.
  return refresh.kv === undefined ? { kind: 'held' } : { kind: 'held', holder: refresh.kv };
}
