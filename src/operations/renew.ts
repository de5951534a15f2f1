import { put, valueIs, type TxnOutcome, type TxnRequest } from './etcd-txn.js';

/**
 * Re-attach the key to a fresh lease only while it still holds our owner value.
 * Idempotent: a retried renew that had committed still finds our value and succeeds again.
 * An expired key is gone from etcd, so the compare fails and the caller learns `false`.
 */
export function renewTxn(key: Buffer, owner: string, lease: string): TxnRequest {
  return { compare: [valueIs(key, owner)], success: [put(key, owner, lease)], failure: [] };
}

export function decodeRenew(outcome: TxnOutcome): boolean {
  return outcome.succeeded;
}
