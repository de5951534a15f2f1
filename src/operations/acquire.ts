import { keyAbsent, put, rangeValue, read, type KeyValue, type TxnOutcome, type TxnRequest } from './etcd-txn.js';

/** How an acquire transaction ended. */
export type AcquireOutcome =
  /** `value` now holds the key, taken at `revision`. */
  | { kind: 'written'; revision: string }
  /** `value` already holds the key (`kv`: a re-acquire, or a retry whose first attempt committed): refresh that version. */
  | { kind: 'mine'; kv: KeyValue }
  /** Someone else holds it; `holder` was read in the same transaction. */
  | { kind: 'held'; holder?: KeyValue };

/**
 * Take the key if it is free, else read it:
 *
 *     If (CREATE == 0)  put(value, lease)
 *     Else  range(key)
 *
 * The common cases pay only for themselves: a fresh key is one compare and one put, and a loser learns the holder
 * from the read in the same transaction as the compare — no second round trip that could race. Only the rare
 * same-owner acquire of a key it already holds takes a second one: the read shows its own value, and the provider
 * refreshes exactly the version it read (refresh-own.ts), which keeps every lease rule. Putting that refresh here as
 * a nested branch would make every acquire carry, and etcd log, compares that a fresh key never needs.
 *
 * A free key is on no lease, so the put cannot shorten anyone's lease. Idempotent: a retry after an ambiguous
 * failure whose first attempt committed finds its own value and refreshes it, reporting the success that really
 * happened.
 */
export function acquireTxn(key: Buffer, value: Buffer, lease: string): TxnRequest {
  return { compare: [keyAbsent(key)], success: [put(key, value, lease)], failure: [read(key)] };
}

export function decodeAcquire(outcome: TxnOutcome, value: Buffer): AcquireOutcome {
  if (outcome.succeeded) return { kind: 'written', revision: outcome.revision };
  // The key existed when the compare ran and is read in the same transaction, so a holder is always read here.
  const kv = rangeValue(outcome);
  if (kv === undefined) return { kind: 'held' };
  return kv.value.equals(value) ? { kind: 'mine', kv } : { kind: 'held', holder: kv };
}
