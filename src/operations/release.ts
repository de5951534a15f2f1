import { remove, valueIs, type TxnRequest } from './etcd-txn.js';

/**
 * Delete the key only while it holds our owner value: the check and the delete are one atomic step,
 * so a release can never remove a lease that expired and was taken by someone else in between.
 * Idempotent: a retry finds the key gone (or someone else's) and does nothing.
 */
export function releaseTxn(key: Buffer, owner: string): TxnRequest {
  return { compare: [valueIs(key, owner)], success: [remove(key)], failure: [] };
}
