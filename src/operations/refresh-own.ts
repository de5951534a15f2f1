import {
  leaseAbove,
  leaseAtLeast,
  leaseAtMost,
  nested,
  nestedOutcome,
  put,
  putKeepingLease,
  rangeValue,
  read,
  valueIs,
  type KeyValue,
  type TxnOutcome,
  type TxnRequest,
} from './etcd-txn.js';

/** The contiguous range of lease ids this provider mints (see leases/lease-id.ts). */
export interface OwnLeaseIds {
  readonly lowest: string;
  readonly highest: string;
}

/** How a refresh of a key held by `value` ended. */
export type RefreshOutcome =
  /** The key holds `value` and stays alive at least as long as `lease` does; written at `revision`. */
  | { kind: 'written'; revision: string }
  /** The key holds `value`, but on a lease this provider did not mint: its TTL must be read (slow path). */
  | { kind: 'foreign'; kv: KeyValue }
  /** The key is absent or holds another value (`kv`, if any). Nothing was written. */
  | { kind: 'not-held'; kv?: KeyValue };

/**
 * Refresh a key while it holds `value`, without ever moving it to a lease that ends earlier than the one it is on.
 *
 * Every etcd put replaces the key's lease, and attempts can land late or out of order: a renew held in a cut link
 * and delivered after a newer renew, a retry of an older call. Comparing the owner alone lets such a late write
 * move the key back onto an older, shorter lease while its holder believes the newer one. Our lease ids grow with
 * their expiry, so:
 *
 * - key on one of our leases with an id ≤ `lease`: move it to `lease` (never earlier than where it was);
 * - key on one of our leases with a larger id: it already lives long enough for this call; write the value but keep
 *   the lease (`ignore_lease`), so the call still commits a write — its revision is the fencing token, and a late
 *   revision-guarded release of an earlier tenure can no longer match;
 * - key on a lease we did not mint (another provider instance or program): read it; the provider decides from the
 *   lease's remaining TTL, never from the id.
 *
 * Idempotent: a retry whose first attempt committed finds the key on `lease` (≤ `lease`) and writes it again.
 */
export function refreshOwnTxn(key: Buffer, value: Buffer, lease: string, own: OwnLeaseIds): TxnRequest {
  return {
    compare: [valueIs(key, value), leaseAtLeast(key, own.lowest), leaseAtMost(key, lease)],
    success: [put(key, value, lease)],
    failure: [
      nested({
        compare: [valueIs(key, value), leaseAbove(key, lease), leaseAtMost(key, own.highest)],
        success: [putKeepingLease(key, value)],
        failure: [read(key)],
      }),
    ],
  };
}

export function decodeRefresh(outcome: TxnOutcome, value: Buffer): RefreshOutcome {
  if (outcome.succeeded) return { kind: 'written', revision: outcome.revision };
  const inner = nestedOutcome(outcome);
  if (inner.succeeded) return { kind: 'written', revision: outcome.revision };
  const kv = rangeValue(inner);
  if (kv !== undefined && kv.value.equals(value)) return { kind: 'foreign', kv };
  return kv === undefined ? { kind: 'not-held' } : { kind: 'not-held', kv };
}
