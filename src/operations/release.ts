import { modIs, rangeValue, read, remove, valueIs, type TxnOutcome, type TxnRequest } from './etcd-txn.js';

/** How a release transaction ended. */
export type ReleaseOutcome =
  | { kind: 'deleted' }
  /** `value` holds the key, but as another write than the one named: retry against `revision` (same call only). */
  | { kind: 'moved'; revision: string }
  /** The key is absent or someone else's: nothing to do. */
  | { kind: 'not-held' };

/**
 * Delete the key only while it holds `value` *and* is still the write with mod revision `revision`.
 *
 * Comparing the owner alone is not enough: a release that is still retrying, or whose attempt sat in a cut link
 * and lands late, would delete a *later* tenure of the same owner string — one its owner believes in — and let
 * another process take the key. Pinned to one revision, an attempt can only ever delete the exact version of the
 * key it was sent for. When the caller does not know the revision ('0'), or the owner wrote again since, the read
 * in the failure branch tells the current one and the provider retries against it within the same call.
 *
 * Idempotent: a retry finds the key gone (or someone else's) and does nothing.
 */
export function releaseTxn(key: Buffer, value: Buffer, revision: string): TxnRequest {
  return { compare: [valueIs(key, value), modIs(key, revision)], success: [remove(key)], failure: [read(key)] };
}

export function decodeRelease(outcome: TxnOutcome, value: Buffer): ReleaseOutcome {
  if (outcome.succeeded) return { kind: 'deleted' };
  const kv = rangeValue(outcome);
  if (kv !== undefined && kv.value.equals(value)) return { kind: 'moved', revision: kv.mod_revision };
  return { kind: 'not-held' };
}
