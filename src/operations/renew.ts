import type { TxnOutcome, TxnRequest } from './etcd-txn.js';
import { decodeRefresh, refreshOwnTxn, type OwnLeaseIds, type RefreshOutcome } from './refresh-own.js';

/**
 * Keep the key alive for another ttl while it still holds `value`. An expired key is gone from etcd, so the
 * compare fails and the caller learns `false`; it is never resurrected. The lease rule (never onto an
 * earlier-ending lease) and the idempotency argument are refresh-own.ts's.
 */
export function renewTxn(key: Buffer, value: Buffer, lease: string, own: OwnLeaseIds): TxnRequest {
  return refreshOwnTxn(key, value, lease, own);
}

export function decodeRenew(outcome: TxnOutcome, value: Buffer): RefreshOutcome {
  return decodeRefresh(outcome, value);
}
