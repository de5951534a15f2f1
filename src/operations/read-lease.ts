import { rangeValue, read, type TxnOutcome, type TxnRequest } from './etcd-txn.js';

/** A lease key as stored: the provider decodes `value` into owner and metadata (keys/lease-value.ts). */
export interface StoredLease {
  value: Buffer;
  /** The key's mod revision: the revision of the last write by its current owner (its fencing token). */
  revision: string;
  /** The etcd lease the key is attached to (decimal string). */
  leaseId: string;
}

/** A plain read, as a transaction so it can share a group-commit batch with writes. */
export function readTxn(key: Buffer): TxnRequest {
  return { compare: [], success: [read(key)], failure: [] };
}

export function decodeRead(outcome: TxnOutcome): StoredLease | undefined {
  const kv = rangeValue(outcome);
  if (!kv) return undefined;
  return { value: kv.value, revision: kv.mod_revision, leaseId: kv.lease };
}
