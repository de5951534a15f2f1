import { modIs, put, rangeValue, read, valueIs, type KeyValue, type TxnOutcome, type TxnRequest } from './etcd-txn.js';

/** How a transfer transaction ended. */
export type TransferOutcome =
  /** `to` now holds the key, handed over at `revision`. */
  | { kind: 'written'; revision: string }
  /** `to` holds the key already (`kv`: an earlier attempt of this transfer committed): refresh that version. */
  | { kind: 'to-holds'; kv: KeyValue }
  /** `from` holds the key, but as another write than `fromRevision`: try again against `revision`. */
  | { kind: 'from-elsewhere'; revision: string }
  /** Neither `from` nor `to` holds the key: nothing was written. */
  | { kind: 'not-held' };

/**
 * Hand the key from `from` to `to` in one in-place put — no delete, so the key is never free:
 *
 *     If (VALUE == from AND MOD == fromRevision)  put(to, lease)
 *     Else  range(key)
 *
 * The handover compares the stored value *and* its mod revision: it moves exactly the tenure the caller means
 * (the write with revision `fromRevision`). Comparing the owner alone would let a late attempt of an old transfer
 * hand away a later tenure of the same owner string without that owner knowing. When the caller does not know the
 * revision ('0'), or `from` wrote again since, the read reports the current one and the provider retries against
 * it (still within the same call, whose per-key order keeps later calls behind it).
 *
 * Idempotent: if the read shows `to` holding the key, an earlier attempt of this same transfer committed (its answer
 * was lost); the provider then refreshes that version for `to` (refresh-own.ts) and reports success.
 */
export function transferTxn(key: Buffer, from: Buffer, fromRevision: string, to: Buffer, lease: string): TxnRequest {
  return { compare: [valueIs(key, from), modIs(key, fromRevision)], success: [put(key, to, lease)], failure: [read(key)] };
}

export function decodeTransfer(outcome: TxnOutcome, from: Buffer, to: Buffer): TransferOutcome {
  if (outcome.succeeded) return { kind: 'written', revision: outcome.revision };
  const kv = rangeValue(outcome);
  if (kv === undefined) return { kind: 'not-held' };
  if (kv.value.equals(to)) return { kind: 'to-holds', kv };
  if (kv.value.equals(from)) return { kind: 'from-elsewhere', revision: kv.mod_revision };
  return { kind: 'not-held' };
}
