import { modIs, rangeValue, read, remove, type KeyValue, type TxnOutcome, type TxnRequest } from './etcd-txn.js';

/**
 * Delete exactly one version of a key — the write with mod revision `revision` — whoever holds it.
 *
 * Used where a caller must remove one specific write and nothing later: `waitForLease` undoing an acquire that won
 * after its waiter gave up (the revision is that acquire's fencing token), and the CLI's `release --force`, which
 * reads the key first and then deletes the version it showed. A retried or late attempt can never delete a later
 * tenure, because any later write has another mod revision.
 */
export function deleteRevisionTxn(key: Buffer, revision: string): TxnRequest {
  return { compare: [modIs(key, revision)], success: [remove(key)], failure: [read(key)] };
}

/** `deleted`, or the key as it is now (undefined when absent). */
export function decodeDeleteRevision(outcome: TxnOutcome): { deleted: true } | { deleted: false; current?: KeyValue } {
  if (outcome.succeeded) return { deleted: true };
  const current = rangeValue(outcome);
  return current === undefined ? { deleted: false } : { deleted: false, current };
}
