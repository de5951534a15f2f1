import { checkOverlaps } from './check-overlaps.js';
import type { History, HistorySummary, Stall } from './types.js';
import { validateHistory } from './validate.js';

/**
 * The longest interval `[start, end)` within `[from, to]` in which no operation was answered
 * (returned `ok` or `lost`), across all clients and keys. A `lost` acquire is an answer from etcd
 * — the holder was named — so only thrown calls (`error`) leave the service unanswered. This is the
 * availability cost of a fault: pass the moment the fault was injected as `from` to measure recovery.
 *
 * @param from start of the range; default: the earliest `sentAt` in the history.
 * @param to end of the range; default: the latest `returnedAt` in the history.
 * For an empty history without a range, the result is a zero stall at 0.
 */
export function longestStall(history: History, from?: number, to?: number): Stall {
  validateHistory(history);
  const lo = from ?? min(history.map((op) => op.sentAt)) ?? to ?? 0;
  const hi = to ?? max(history.map((op) => op.returnedAt)) ?? lo;
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) {
    throw new RangeError(`from/to: must be finite numbers, got from=${String(from)} to=${String(to)}`);
  }
  if (hi < lo) throw new RangeError(`to: ${hi} is before from ${lo}`);

  const completions = history
    .filter((op) => op.outcome !== 'error' && op.returnedAt >= lo && op.returnedAt <= hi)
    .map((op) => op.returnedAt)
    .sort((a, b) => a - b);
  const marks = [lo, ...completions, hi];

  let longest: Stall = { start: lo, end: lo, durationMs: 0 };
  for (let i = 1; i < marks.length; i++) {
    const start = marks[i - 1] as number;
    const end = marks[i] as number;
    if (end - start > longest.durationMs) longest = { start, end, durationMs: end - start };
  }
  return longest;
}

/** Headline figures for a chaos run or a demo. */
export function summarize(history: History): HistorySummary {
  return {
    ops: history.length,
    errors: history.filter((op) => op.outcome === 'error').length,
    overlaps: checkOverlaps(history).length,
    longestStallMs: longestStall(history).durationMs,
  };
}

function min(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : values.reduce((a, b) => Math.min(a, b));
}

function max(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : values.reduce((a, b) => Math.max(a, b));
}
