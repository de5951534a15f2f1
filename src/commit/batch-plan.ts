import type { IRequestOp } from 'etcd3';
import type { TxnRequest } from '../operations/etcd-txn.js';

/** What batch planning needs to know about a queued operation. */
export interface Plannable {
  /** Identity of the etcd key the operation touches (same key ⇒ same string). */
  readonly keyId: string;
  /** Approximate encoded size in bytes. */
  readonly bytes: number;
}

export interface BatchLimits {
  maxOps: number;
  maxBytes: number;
}

/**
 * Picks which queued operations go into the next transaction, in queue order.
 *
 * - etcd rejects a transaction that writes one key twice, and same-key operations must keep their
 *   order, so an operation whose key is already in this batch *or in a batch still in flight* is
 *   skipped — and with it every later operation on that key, which keeps per-key FIFO order.
 * - The batch stays under the op-count and byte limits; the first eligible operation is always taken
 *   (alone if need be) so a large request cannot starve.
 * Returns the indices of the chosen operations.
 */
export function planBatch(queue: readonly Plannable[], busyKeys: ReadonlySet<string>, limits: BatchLimits): number[] {
  const chosen: number[] = [];
  const inBatch = new Set<string>();
  let bytes = 0;
  for (let i = 0; i < queue.length && chosen.length < limits.maxOps; i++) {
    const op = queue[i]!;
    if (busyKeys.has(op.keyId) || inBatch.has(op.keyId)) {
      inBatch.add(op.keyId); // later ops on this key must wait for this one
      continue;
    }
    if (chosen.length > 0 && bytes + op.bytes > limits.maxBytes) break;
    chosen.push(i);
    inBatch.add(op.keyId);
    bytes += op.bytes;
  }
  return chosen;
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
