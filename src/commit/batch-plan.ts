import type { ICompare, IRequestOp } from 'etcd3';
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

/** Rough encoded size of a transaction: key and value bytes plus a fixed overhead per element. */
export function requestBytes(request: TxnRequest): number {
  const compare = (c: ICompare) => 16 + (c.key?.length ?? 0) + (c.value?.length ?? 0);
  const op = (o: IRequestOp): number =>
    16 +
    (o.request_put ? (o.request_put.key?.length ?? 0) + (o.request_put.value?.length ?? 0) : 0) +
    (o.request_range?.key?.length ?? 0) +
    (o.request_delete_range?.key?.length ?? 0) +
    (o.request_txn ? requestBytes(o.request_txn) : 0);
  return (
    16 +
    (request.compare ?? []).reduce((n, c) => n + compare(c), 0) +
    (request.success ?? []).reduce((n, o) => n + op(o), 0) +
    (request.failure ?? []).reduce((n, o) => n + op(o), 0)
  );
}
