import type { Event } from '@mastra/core/events';
import { LeaseArgumentTypeError } from '../../errors/invalid-argument.js';
import { remove, type TxnRequest } from '../../operations/etcd-txn.js';

/** Which of a run's events `trimTopic` deletes: all of them, or with `producedBefore` only the unpinned older ones. */
export interface TrimSelection {
  runId: string;
  /** Delete only events whose `data.producedAt` is a number at or before this, and whose `data.pinned` is not set. */
  producedBefore?: number;
}

/**
 * True when `event` is one `trimTopic` deletes, by the rule of Mastra's Redis Streams backend: the event's `runId`
 * matches; with `producedBefore`, its `data.producedAt` must be a number no later than it and it must not be pinned
 * (an event without `producedAt` is kept: nothing says it is old).
 */
export function isTrimmed(event: Event, selection: TrimSelection): boolean {
  if ((event as { runId?: unknown }).runId !== selection.runId) return false;
  if (selection.producedBefore === undefined) return true;
  const data = (event as { data?: { producedAt?: unknown; pinned?: unknown } }).data;
  const producedAt = data?.producedAt;
  return typeof producedAt === 'number' && producedAt <= selection.producedBefore && !data?.pinned;
}

/**
 * The deletes of one trim, in transactions of at most `perTxn` keys (etcd's --max-txn-ops, 128 by default, counts
 * each operation). A key already gone is no error: deleting is idempotent, so a resent transaction is harmless.
 */
export function trimTxns(keys: readonly Buffer[], perTxn: number): TxnRequest[] {
  const txns: TxnRequest[] = [];
  for (let i = 0; i < keys.length; i += perTxn) {
    txns.push({ compare: [], success: keys.slice(i, i + perTxn).map(remove), failure: [] });
  }
  return txns;
}

/** `trimTopic`'s second argument; the error names the parameter. */
export function checkTrimSelection(selection: unknown): asserts selection is TrimSelection {
  if (selection === null || typeof selection !== 'object') throw new LeaseArgumentTypeError('options', 'must be an object { runId, producedBefore? }');
  const { runId, producedBefore } = selection as { runId?: unknown; producedBefore?: unknown };
  if (typeof runId !== 'string' || runId.length === 0) throw new LeaseArgumentTypeError('options.runId', 'must be a non-empty string');
  if (producedBefore !== undefined && (typeof producedBefore !== 'number' || Number.isNaN(producedBefore))) {
    throw new LeaseArgumentTypeError('options.producedBefore', `must be a number (ms) when given, got ${typeof producedBefore}`);
  }
}
