import type { TxnOutcome, TxnRequest } from './etcd-txn.js';
import { decodeRefresh, refreshTxn, type HeldVersion, type RefreshOutcome } from './refresh-own.js';

/**
 * Keep the key alive for another ttl while it still holds `value` as `version`: one pinned refresh (refresh-own.ts,
 * which argues the lease rule and idempotency). An expired key is gone from etcd, so the compare fails and the
 * caller learns `false`; it is never resurrected.
 */
export function renewTxn(key: Buffer, value: Buffer, version: HeldVersion, lease: string, keep: boolean): TxnRequest {
  return refreshTxn(key, value, version, lease, keep);
}

export function decodeRenew(outcome: TxnOutcome, value: Buffer): RefreshOutcome {
  return decodeRefresh(outcome, value);
}
