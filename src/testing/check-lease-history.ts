import { deriveBeliefWindows } from '../../safety-checker/belief-windows.js';
import { checkFencingMonotonic, findOverlaps } from '../../safety-checker/check-overlaps.js';
import { longestStall } from '../../safety-checker/stalls.js';
import type { BeliefWindow, FencingViolation, History, OverlapViolation, Stall } from '../../safety-checker/types.js';

export interface CheckLeaseHistoryOptions {
  /**
   * The longest time without an answered call (`ok` or `lost`) that still passes; a longer stall is a violation.
   * Without it the longest stall is measured and reported, never a violation (a fault may rightly stop the service).
   */
  maxStallMs?: number;
  /** Measure stalls from here (e.g. when the fault was injected), on the history's clock. @default the first send */
  stallFrom?: number;
  /** …to here. @default the last return */
  stallTo?: number;
}

/** A stall longer than `maxStallMs`. */
export interface StallViolation extends Stall {
  readonly maxStallMs: number;
}

export interface LeaseHistoryVerdict {
  /** No overlap, no fencing-token violation, no stall past `maxStallMs`. */
  readonly ok: boolean;
  /** Two owners believed they held one key at the same time. */
  readonly overlaps: readonly OverlapViolation[];
  /** A new owner's token not above an earlier owner's, or an owner's token going down. */
  readonly fencing: readonly FencingViolation[];
  readonly stall: StallViolation | undefined;
  /** The longest interval in which no call was answered. */
  readonly longestStall: Stall;
  /** Every belief window (who may act as owner of which key, and when), for a report of your own. */
  readonly windows: readonly BeliefWindow[];
  readonly calls: { readonly total: number; readonly errors: number };
  /** One paragraph per violation (key, owners, windows, tokens), times in ms from the history's first call. */
  readonly report: string;
}

/**
 * The verdict on a history recorded by `recordLeaseCalls` (of one process, or of several concatenated):
 *
 * - **belief windows never overlap**: an owner may believe it holds a key from the return of a successful acquire,
 *   renew or transfer-in until the send time of its latest successful refresh plus its TTL (or until it releases,
 *   transfers away or hears `lost`). Two owners' windows on one key sharing a moment is a violation: both could act.
 *   Calls that threw neither open nor extend a window.
 * - **fencing tokens only go up**: a new owner's token is above every earlier owner's; an owner's token never drops.
 * - **stalls**: the longest time no call was answered, and a violation past `maxStallMs`.
 *
 * Throws `InvalidHistoryError` (naming the entry and field) for a garbled history: a verdict on it would mean nothing.
 */
export function checkLeaseHistory(history: History, options: CheckLeaseHistoryOptions = {}): LeaseHistoryVerdict {
  const { maxStallMs } = options;
  if (maxStallMs !== undefined && (!Number.isFinite(maxStallMs) || maxStallMs < 0)) {
    throw new RangeError(`options.maxStallMs must be a finite number >= 0, got ${String(maxStallMs)}`);
  }
  const windows = deriveBeliefWindows(history);
  const overlaps = findOverlaps(windows);
  const fencing = checkFencingMonotonic(history);
  const measured = longestStall(history, options.stallFrom, options.stallTo);
  const stall = maxStallMs !== undefined && measured.durationMs > maxStallMs ? { ...measured, maxStallMs } : undefined;
  const origin = history.reduce((min, op) => Math.min(min, op.sentAt), Infinity);
  const at = (t: number) => `${Math.round(t - (Number.isFinite(origin) ? origin : 0))} ms`;
  const span = (w: BeliefWindow) => `[${at(w.start)}, ${at(w.end)}) ended by ${w.endedBy}`;
  const grant = (w: BeliefWindow) => {
    const first = w.grants[0];
    return first === undefined ? '' : `, opened by ${first.op} from ${first.client} sent at ${at(first.sentAt)}, returned at ${at(first.returnedAt)}`;
  };
  const paragraphs = [
    ...overlaps.map(
      (v) =>
        `OVERLAP on key "${v.key}": owners "${v.first.owner}" and "${v.second.owner}" both held it for ${Math.round(v.overlapMs)} ms\n` +
        `  "${v.first.owner}" ${span(v.first)}${grant(v.first)}\n` +
        `  "${v.second.owner}" ${span(v.second)}${grant(v.second)}`,
    ),
    ...fencing.map(
      (v) =>
        `FENCING on key "${v.key}" (${v.kind}): "${v.later.owner}" got token ${v.later.token} (${v.later.op.op} returned at ${at(v.later.op.returnedAt)}) ` +
        `after "${v.earlier.owner}" had token ${v.earlier.token} (${v.earlier.op.op} returned at ${at(v.earlier.op.returnedAt)})`,
    ),
    ...(stall === undefined ? [] : [`STALL: no call answered for ${Math.round(stall.durationMs)} ms, [${at(stall.start)}, ${at(stall.end)}), more than ${maxStallMs} ms`]),
  ];
  const errors = history.filter((op) => op.outcome === 'error').length;
  const summary = `${history.length} calls (${errors} threw), ${windows.length} belief windows, ${overlaps.length} overlaps, ${fencing.length} fencing violations, longest stall ${Math.round(measured.durationMs)} ms`;
  return {
    ok: overlaps.length === 0 && fencing.length === 0 && stall === undefined,
    overlaps,
    fencing,
    stall,
    longestStall: measured,
    windows,
    calls: { total: history.length, errors },
    report: [summary, ...paragraphs].join('\n'),
  };
}
