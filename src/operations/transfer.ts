import { nested, nestedOutcome, put, valueIs, type TxnOutcome, type TxnRequest } from './etcd-txn.js';

/**
 * Swap the owner value in place — one put, no delete — so the key is never free during a handoff.
 *
 * The failure branch makes it idempotent: if the key already holds `to`, a previous attempt of this
 * same transfer committed (its answer was lost), so the retry refreshes `to` and reports `true`.
 * A `from` that had lost the key to a third owner gets `false` and nothing is written.
 */
export function transferTxn(key: Buffer, from: string, to: string, lease: string): TxnRequest {
  return {
    compare: [valueIs(key, from)],
    success: [put(key, to, lease)],
    failure: [nested({ compare: [valueIs(key, to)], success: [put(key, to, lease)], failure: [] })],
  };
}

export function decodeTransfer(outcome: TxnOutcome): boolean {
  return outcome.succeeded || nestedOutcome(outcome).succeeded;
}
