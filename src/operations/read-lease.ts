import { rangeValue, read, type TxnOutcome, type TxnRequest } from './etcd-txn.js';

export interface LeaseRecord {
  owner: string;
  /** The key's mod revision: the revision of the last write by its current owner. */
  fencingToken: string;
  /** The etcd lease the key is attached to (decimal string). */
  leaseId: string;
}

/** A plain read, as a transaction so it can share a group-commit batch with writes. */
export function readTxn(key: Buffer): TxnRequest {
  return { compare: [], success: [read(key)], failure: [] };
}

export function decodeRead(outcome: TxnOutcome): LeaseRecord | undefined {
  const kv = rangeValue(outcome);
  if (!kv) return undefined;
  return { owner: kv.value.toString('utf8'), fencingToken: kv.mod_revision, leaseId: kv.lease };
}
