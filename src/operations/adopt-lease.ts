import { leaseIs, modIs, put, putKeepingLease, valueIs, type TxnOutcome, type TxnRequest } from './etcd-txn.js';

/**
 * The slow path for a key held by `value` on a lease this provider did not mint (another provider instance with
 * the same owner string, or an older version of this package). Its id says nothing about its expiry, so the
 * provider reads the lease's remaining TTL and then either keeps the key on it (it lives long enough) or moves
 * the key to a lease of its own. Both writes are pinned to the version of the key that was read (value, mod
 * revision, and for `keep` the lease): if anything changed in between, nothing is written and the call starts over.
 */
export function keepLeaseTxn(key: Buffer, value: Buffer, revision: string, lease: string): TxnRequest {
  return { compare: [valueIs(key, value), modIs(key, revision), leaseIs(key, lease)], success: [putKeepingLease(key, value)], failure: [] };
}

export function moveLeaseTxn(key: Buffer, value: Buffer, revision: string, lease: string): TxnRequest {
  return { compare: [valueIs(key, value), modIs(key, revision)], success: [put(key, value, lease)], failure: [] };
}

/** Revision of the adopting write, or undefined when the key changed and the call must start over. */
export function decodeAdopt(outcome: TxnOutcome): string | undefined {
  return outcome.succeeded ? outcome.revision : undefined;
}
