import { checkFencingMonotonic, checkOverlaps } from '../check-overlaps.js';
import { checkEarlyLoss } from '../early-loss.js';
import type { History } from '../types.js';
import type { AppliedFault } from './apply.js';
import { checkCallerErrors, type CallerErrorOptions } from './caller-errors.js';

/** What a workload's history showed under a composed run: its figures and each check's violations. */
export interface WorkloadVerdict {
  readonly workload: string;
  /** Calls recorded, and how many were answered `ok`. */
  readonly calls: number;
  readonly granted: number;
  /** Violations per check, by name (0 each for a clean run). */
  readonly violations: Readonly<Record<string, number>>;
  /** A few violations spelled out, for a failure message. */
  readonly examples: readonly string[];
}

/**
 * The lease checks of a composed run over one history: no overlapping belief windows, fencing tokens monotonic, no
 * lease lost while its renewals were answered in time, no caller error while a majority was healthy and the load
 * below capacity (`checkCallerErrors` over the fault timeline).
 */
export function judgeLeaseHistory(workload: string, history: History, timeline: readonly AppliedFault[], options: CallerErrorOptions): WorkloadVerdict {
  const overlaps = checkOverlaps(history);
  const fencing = checkFencingMonotonic(history);
  const early = checkEarlyLoss(history);
  const errors = checkCallerErrors(history, timeline, options);
  const t = (ms: number) => ms.toFixed(0);
  const examples = [
    ...overlaps.slice(0, 3).map((v) => `overlap on ${JSON.stringify(v.key)}: ${v.first.owner} and ${v.second.owner} for ${t(v.overlapMs)} ms`),
    ...fencing.slice(0, 3).map((v) => `fencing ${v.kind} on ${JSON.stringify(v.key)}: ${v.earlier.owner} ${v.earlier.token} then ${v.later.owner} ${v.later.token}`),
    ...early.slice(0, 3).map((v) => `early loss on ${JSON.stringify(v.key)}: ${v.owner}'s ${v.lost.op} sent at ${t(v.lost.sentAt)} answered lost ${t(v.earlyByMs)} ms before its ${v.grant.op} (sent at ${t(v.grant.sentAt)}) ran out`),
    ...errors.slice(0, 3).map((op) => `error with a majority healthy: ${op.client} ${op.op} ${JSON.stringify(op.key)} sent at ${t(op.sentAt)}, failed after ${t(op.returnedAt - op.sentAt)} ms`),
  ];
  return {
    workload,
    calls: history.length,
    granted: history.filter((op) => op.outcome === 'ok').length,
    violations: { overlaps: overlaps.length, fencing: fencing.length, 'early losses': early.length, 'caller errors': errors.length },
    examples,
  };
}
