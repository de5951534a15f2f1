import { modIs, put, putKeepingLease, rangeValue, read, valueIs, type KeyValue, type TxnOutcome, type TxnRequest } from './etcd-txn.js';

/**
 * One version of a key that holds the caller's value, as the provider knows it: the mod revision of the write that
 * made it (the provider's own last write, or one it read) and the etcd lease it is on since that write.
 */
export interface HeldVersion {
  readonly revision: string;
  readonly lease: string;
}

/** How a refresh of one version ended. */
export type RefreshOutcome =
  /** The key holds `value` and lasts at least as long as the call's lease; written at `revision`. */
  | { kind: 'written'; revision: string }
  /** The key holds `value`, but as another version than the one named (`kv`): decide again from that one. */
  | { kind: 'moved'; kv: KeyValue }
  /** The key is absent or holds another value (`kv`, if any). Nothing was written. */
  | { kind: 'not-held'; kv?: KeyValue };

/**
 * Refresh exactly one version of a key that holds `value`:
 *
 *     If (VALUE == value AND MOD == version.revision)  put(value, lease)   -- or put(value, ignore_lease) to keep
 *     Else  range(key)
 *
 * The caller chose move or keep from that version's lease (calls/refresh-choice.ts), and the compare pins the write to that
 * very version: its value and the lease it is on cannot have changed without a write, and any write changes the mod
 * revision. So the choice is as good as made inside etcd, and an attempt that lands late or out of order — a renew
 * held in a cut link, an older call's retry — finds a newer version and writes nothing: no attempt, however late,
 * moves the key onto an earlier-ending lease. The value compare keeps it an owner check whatever happens to revision
 * numbers (an etcd restored from a snapshot reuses them).
 *
 * An expired key is gone, so the compare fails and the read shows it absent: never resurrected. The read tells a
 * key taken by someone else (not held) from our own value written as another version (moved: our answer to an
 * earlier attempt was lost, or another process with the same owner string wrote), which the caller refreshes in
 * turn. Idempotent: a retry whose first attempt committed finds that attempt's version and refreshes it.
 */
export function refreshTxn(key: Buffer, value: Buffer, version: HeldVersion, lease: string, keep: boolean): TxnRequest {
  return {
    compare: [valueIs(key, value), modIs(key, version.revision)],
    success: [keep ? putKeepingLease(key, value) : put(key, value, lease)],
    failure: [read(key)],
  };
}

export function decodeRefresh(outcome: TxnOutcome, value: Buffer): RefreshOutcome {
  if (outcome.succeeded) return { kind: 'written', revision: outcome.revision };
  const kv = rangeValue(outcome);
  if (kv === undefined) return { kind: 'not-held' };
  return kv.value.equals(value) ? { kind: 'moved', kv } : { kind: 'not-held', kv };
}
