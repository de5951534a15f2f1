import type { IRequestOp } from 'etcd3';
import type { TxnRequest } from '../operations/etcd-txn.js';

/** What batch planning needs to know about a queued operation. */
interface Plannable {
  /** Approximate encoded size in bytes (`requestBytes`). */
  readonly bytes: number;
  /** Its `nestingCost`. */
  readonly nesting: number;
}

export interface BatchLimits {
  /** Most sub-transactions. */
  maxOps: number;
  maxBytes: number;
  /** The server's --max-txn-ops as far as the provider knows (etcd's default, 128, until a batch is refused). */
  maxTxnOps: number;
}

/** A batch being filled: how many sub-transactions, their bytes, and the deepest nesting among them. */
export interface BatchFill {
  count: number;
  bytes: number;
  deepest: number;
}

/** etcd's default --max-txn-ops. */
export const ETCD_MAX_TXN_OPS = 128;

/**
 * Whether `op` still fits in `batch`. The first operation always fits (alone if need be, so a large one cannot
 * starve). After it: at most `maxOps` sub-transactions and `maxBytes`, and etcd's op limit as etcd counts it: a
 * nested transaction may use only what its ancestors left of --max-txn-ops (`checkTxnRequest` passes each child
 * `maxTxnOps − opc`), so n sub-transactions fit when n plus the deepest `nestingCost` among them is at most
 * --max-txn-ops. (With the default 128 that is 121 acquires or 122 renewals.)
 */
export function fits(batch: BatchFill, op: Plannable, limits: BatchLimits): boolean {
  if (batch.count === 0) return true;
  if (batch.count + 1 > limits.maxOps || batch.bytes + op.bytes > limits.maxBytes) return false;
  return batch.count + 1 + Math.max(batch.deepest, op.nesting) <= limits.maxTxnOps;
}

export function addTo(batch: BatchFill, op: Plannable): void {
  batch.count++;
  batch.bytes += op.bytes;
  batch.deepest = Math.max(batch.deepest, op.nesting);
}

/**
 * How much of etcd's --max-txn-ops `request` uses along its deepest chain of nested transactions: its own op count
 * (the largest of its compares, success and failure branches, as etcd counts it) plus the deepest child's.
 */
export function nestingCost(request: TxnRequest): number {
  const own = Math.max(request.compare?.length ?? 0, request.success?.length ?? 0, request.failure?.length ?? 0);
  return own + Math.max(deepestChild(request.success), deepestChild(request.failure));
}

function deepestChild(ops: readonly IRequestOp[] | undefined): number {
  let deepest = 0;
  if (ops) for (let i = 0; i < ops.length; i++) if (ops[i]!.request_txn) deepest = Math.max(deepest, nestingCost(ops[i]!.request_txn!));
  return deepest;
}

/**
 * Rough encoded size of a transaction: key and value bytes plus a fixed overhead per element. Plain loops: it runs
 * for every submission, and closures per call were a visible share of the hot path's allocations.
 */
export function requestBytes(request: TxnRequest): number {
  let bytes = 16;
  const compare = request.compare;
  if (compare) for (let i = 0; i < compare.length; i++) bytes += 16 + (compare[i]!.key?.length ?? 0) + (compare[i]!.value?.length ?? 0);
  if (request.success) bytes += opsBytes(request.success);
  if (request.failure) bytes += opsBytes(request.failure);
  return bytes;
}

function opsBytes(ops: readonly IRequestOp[]): number {
  let bytes = 0;
  for (let i = 0; i < ops.length; i++) {
    const o = ops[i]!;
    bytes += 16;
    if (o.request_put) bytes += (o.request_put.key?.length ?? 0) + (o.request_put.value?.length ?? 0);
    if (o.request_range) bytes += o.request_range.key?.length ?? 0;
    if (o.request_delete_range) bytes += o.request_delete_range.key?.length ?? 0;
    if (o.request_txn) bytes += requestBytes(o.request_txn);
  }
  return bytes;
}
