import { modIs, nested, nestedOutcome, put, valueIs, type KeyValue, type TxnOutcome, type TxnRequest } from './etcd-txn.js';
import { decodeRefresh, refreshOwnTxn, type OwnLeaseIds } from './refresh-own.js';

/** How a transfer transaction ended. */
export type TransferOutcome =
  /** `to` now holds the key (handed over here, or by an earlier attempt of this transfer), written at `revision`. */
  | { kind: 'written'; revision: string }
  /** `to` holds the key on a lease this provider did not mint: settled by the lease's TTL (slow path). */
  | { kind: 'foreign'; kv: KeyValue }
  /** `from` holds the key, but as another write than `fromRevision`: try again against `revision`. */
  | { kind: 'from-elsewhere'; revision: string }
  /** Neither `from` nor `to` holds the key: nothing was written. */
  | { kind: 'not-held' };

/**
 * Hand the key from `from` to `to` in one in-place put — no delete, so the key is never free.
 *
 * The handover compares the stored value *and* its mod revision: it moves exactly the tenure the caller means
 * (the write with revision `fromRevision`). Comparing the owner alone would let a late attempt of an old transfer
 * hand away a later tenure of the same owner string without that owner knowing. When the caller does not know the
 * revision ('0'), or `from` wrote again since, the read in the failure branch reports the current one and the
 * provider retries against it (still within the same call, whose per-key order keeps later calls behind it).
 *
 * The failure branch makes it idempotent: if `to` already holds the key, a previous attempt of this same transfer
 * committed (its answer was lost), so the retry refreshes `to` like a renew (refresh-own.ts) and reports success.
 */
export function transferTxn(
  key: Buffer,
  from: Buffer,
  fromRevision: string,
  to: Buffer,
  lease: string,
  own: OwnLeaseIds,
): TxnRequest {
  return {
    compare: [valueIs(key, from), modIs(key, fromRevision)],
    success: [put(key, to, lease)],
    failure: [nested(refreshOwnTxn(key, to, lease, own))],
  };
}

export function decodeTransfer(outcome: TxnOutcome, from: Buffer, to: Buffer): TransferOutcome {
  if (outcome.succeeded) return { kind: 'written', revision: outcome.revision };
  const refresh = decodeRefresh(nestedOutcome(outcome), to);
  if (refresh.kind !== 'not-held') return refresh;
  if (refresh.kv !== undefined && refresh.kv.value.equals(from)) return { kind: 'from-elsewhere', revision: refresh.kv.mod_revision };
  return { kind: 'not-held' };
}
