import { CompareResult, CompareTarget, type ICompare, type IRequestOp, type ITxnRequest } from 'etcd3';

/**
 * The slice of etcd's Txn wire format the operations use. `etcd3`'s generated
 * `ITxnResponse` omits `responses`, so the response side is typed here.
 * Revisions and lease ids are int64 and travel as decimal strings.
 */
export type TxnRequest = ITxnRequest;

export interface KeyValue {
  key: Buffer;
  value: Buffer;
  mod_revision: string;
  create_revision: string;
  lease: string;
}

export interface ResponseOp {
  response_range?: { kvs: KeyValue[] };
  response_put?: unknown;
  response_delete_range?: { deleted: string };
  response_txn?: TxnResponse;
}

export interface TxnResponse {
  header?: { revision: string };
  succeeded: boolean;
  responses: ResponseOp[];
}

/** What one operation's decoder sees: its own (sub-)transaction's answer and the revision it committed at. */
export interface TxnOutcome {
  succeeded: boolean;
  responses: ResponseOp[];
  /** Cluster revision of the transaction that carried this operation. */
  revision: string;
}

/** The key does not exist (its create revision is 0). */
export function keyAbsent(key: Buffer): ICompare {
  return { key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 };
}

/**
 * Some key exists in [key, rangeEnd). etcd compares every key of a range and, for an empty range, a key that does not
 * exist (version 0): so "version > 0" over the range holds exactly when the range holds a key.
 */
export function someKeyIn(key: Buffer, rangeEnd: Buffer): ICompare {
  return { key, range_end: rangeEnd, target: CompareTarget.Version, result: CompareResult.Greater, version: 0 };
}

/**
 * Every key of [key, rangeEnd) was created at `revision`: the range holds that one key and no other (two keys never
 * share a create revision unless one transaction wrote both). False on an empty range.
 */
export function onlyKeyIn(key: Buffer, rangeEnd: Buffer, revision: string): ICompare {
  return { key, range_end: rangeEnd, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: revision };
}

/** The key exists and holds exactly these bytes. False on an absent key. */
export function valueIs(key: Buffer, value: Buffer): ICompare {
  return { key, target: CompareTarget.Value, result: CompareResult.Equal, value };
}

/** The key's last write happened at exactly this revision: it is still that very write (one tenure's version). */
export function modIs(key: Buffer, revision: string): ICompare {
  return { key, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: revision };
}

/** The key is attached to exactly this etcd lease. */
export function leaseIs(key: Buffer, lease: string): ICompare {
  return { key, target: CompareTarget.Lease, result: CompareResult.Equal, lease };
}

/** Write the value and attach the key to `lease` (replacing the lease it was on). */
export function put(key: Buffer, value: Buffer, lease: string): IRequestOp {
  return { request_put: { key, value, lease } };
}

/**
 * Write the value but keep the key on the lease it is on (etcd's `ignore_lease`; the key must exist, which
 * every caller's compare guarantees). Bumps the key's mod revision like any write.
 */
export function putKeepingLease(key: Buffer, value: Buffer): IRequestOp {
  return { request_put: { key, value, ignore_lease: true } };
}

/** Moves an existing key to another lease without sending its value again (etcd's `ignore_value`). */
export function moveToLease(key: Buffer, lease: string): IRequestOp {
  return { request_put: { key, ignore_value: true, lease } };
}

/** The key exists. */
export function keyPresent(key: Buffer): ICompare {
  return { key, target: CompareTarget.Create, result: CompareResult.Greater, create_revision: 0 };
}

export function remove(key: Buffer): IRequestOp {
  return { request_delete_range: { key } };
}

export function read(key: Buffer): IRequestOp {
  return { request_range: { key } };
}

export function nested(txn: ITxnRequest): IRequestOp {
  return { request_txn: txn };
}

/** The first key-value of the range response at `index`, if the key existed. */
export function rangeValue(outcome: TxnOutcome, index = 0): KeyValue | undefined {
  return outcome.responses[index]?.response_range?.kvs?.[0];
}
