import type { ICompare, IRequestOp, ITxnRequest } from 'etcd3';

/**
 * The slice of etcd's Txn wire format the operations use. `etcd3`'s generated
 * `ITxnResponse` omits `responses`, so the response side is typed here.
 * Revisions are int64 and arrive as decimal strings.
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

// Numeric values of etcd's Compare enums (rpc.proto); numbers are accepted whatever enum encoding the client uses.
const EQUAL = 0;
const CREATE = 1;
const VALUE = 3;

/** The key does not exist (its create revision is 0). */
export function keyAbsent(key: Buffer): ICompare {
  return { key, target: CREATE, result: EQUAL, create_revision: 0 };
}

/** The key exists and holds exactly these bytes. False on an absent key. */
export function valueIs(key: Buffer, value: string): ICompare {
  return { key, target: VALUE, result: EQUAL, value: Buffer.from(value, 'utf8') };
}

export function put(key: Buffer, value: string, lease: string): IRequestOp {
  return { request_put: { key, value: Buffer.from(value, 'utf8'), lease } };
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

/** The answer of the nested transaction at `index`, which the caller's shape put there. */
export function nestedOutcome(outcome: TxnOutcome, index = 0): TxnOutcome {
  const inner = outcome.responses[index]?.response_txn;
  if (!inner) {
    throw new Error('etcd returned no nested transaction result: the server may predate nested transactions (etcd < 3.3)');
  }
  return { succeeded: inner.succeeded, responses: inner.responses ?? [], revision: outcome.revision };
}

/** The first key-value of the range response at `index`, if the key existed. */
export function rangeValue(outcome: TxnOutcome, index = 0): KeyValue | undefined {
  return outcome.responses[index]?.response_range?.kvs?.[0];
}
