import type { History, RecordedOp } from '../types.js';
import type { AppliedFault } from './apply.js';
import { QUORUM_FAULTS } from './schedule.js';

/** A stretch of a run in which calls may fail, and why. */
export interface ExcusedInterval {
  readonly start: number;
  readonly end: number;
  readonly why: string;
  /** Only calls of this client process are excused; every call when absent. */
  readonly process?: number;
}

export interface CallerErrorOptions {
  /** Cluster size. @default 3 */
  readonly members?: number;
  /** The client process a call came from (for faults that hit one process). */
  readonly processOf: (op: RecordedOp) => number | undefined;
  /**
   * The workload's client processes: a fault the schedule aims at process p hits process p % processes (as the
   * applier sends it). @default unbounded
   */
  readonly processes?: number;
  /**
   * A call sent just before a fault ended may run out its deadline after: calls may fail until this long after the
   * end. @default 5000 (a call's default deadline)
   */
  readonly graceMs?: number;
}

/**
 * When a caller may see an error: while a majority of members is out (killed, stopped, blackholed — its Raft
 * traffic gone), while etcd's NOSPACE alarm is raised, and, for one process's calls, while it floods its provider with
 * more than the cluster serves or is suspended — each until `graceMs` after it ends. Everything else — one member
 * out, a cut or slow client link, a clock step — a correct provider rides through with no error.
 */
export function excusedIntervals(timeline: readonly AppliedFault[], options: CallerErrorOptions): ExcusedInterval[] {
  const members = options.members ?? 3;
  const grace = options.graceMs ?? 5000;
  const excused: ExcusedInterval[] = [];
  for (const f of timeline) {
    if (f.kind === 'nospace') excused.push({ start: f.startedAt, end: f.endedAt + grace, why: `#${f.id} NOSPACE` });
    if (f.kind === 'flood' || f.kind === 'suspend') {
      const process = options.processes === undefined ? f.process! : f.process! % options.processes;
      excused.push({ start: f.startedAt, end: f.endedAt + grace, why: `#${f.id} ${f.kind}`, process });
    }
  }
  // Sweep the member faults in time order: where the members out leave no majority.
  const edges = timeline
    .filter((f) => QUORUM_FAULTS.has(f.kind))
    .flatMap((f) => [
      { at: f.startedAt, delta: f.members.length, id: f.id },
      { at: f.endedAt, delta: -f.members.length, id: f.id },
    ])
    .sort((a, b) => a.at - b.at || b.delta - a.delta);
  const majority = Math.floor(members / 2) + 1;
  let out = 0;
  let lostAt: number | undefined;
  const causes = new Set<number>();
  for (const edge of edges) {
    out += edge.delta;
    if (edge.delta > 0) causes.add(edge.id);
    if (lostAt === undefined && members - out < majority) lostAt = edge.at;
    else if (lostAt !== undefined && members - out >= majority) {
      excused.push({ start: lostAt, end: edge.at + grace, why: `no majority (faults #${[...causes].sort((a, b) => a - b).join(', #')})` });
      lostAt = undefined;
      causes.clear();
    }
    if (out === 0) causes.clear();
  }
  return excused;
}

/**
 * No caller error while a majority is healthy and the load is below capacity: every errored call whose flight
 * (sent to returned) touches no excused interval (`excusedIntervals`) for its process.
 */
export function checkCallerErrors(history: History, timeline: readonly AppliedFault[], options: CallerErrorOptions): RecordedOp[] {
  const excused = excusedIntervals(timeline, options);
  return history.filter((op) => {
    if (op.outcome !== 'error') return false;
    const process = options.processOf(op);
    return !excused.some((e) => (e.process === undefined || e.process === process) && op.sentAt <= e.end && op.returnedAt >= e.start);
  });
}
