import type { History, RecordedOp } from '../types.js';
import type { AppliedFault } from './apply.js';
import { QUORUM_FAULTS } from './schedule.js';

/** Faults that keep a member from its clients (in time) while it stays in the quorum. */
const CLIENT_LINK_FAULTS: ReadonlySet<string> = new Set(['cut-link', 'slow-link']);

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
 * traffic gone) or no member of the quorum is in the clients' reach (the others' client links cut or slowed past an
 * attempt timeout: a call has nowhere to go), while etcd's NOSPACE alarm is raised, and, for one process's calls, while it floods its provider with
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
  // Between any two fault edges the state is constant: excuse each stretch where no majority is in the quorum, or
  // where no member of the quorum is in the clients' reach (all cut, slowed past an attempt timeout, or out).
  const clusterFaults = timeline.filter((f) => QUORUM_FAULTS.has(f.kind) || CLIENT_LINK_FAULTS.has(f.kind));
  const edges = [...new Set(clusterFaults.flatMap((f) => [f.startedAt, f.endedAt]))].sort((a, b) => a - b);
  const majority = Math.floor(members / 2) + 1;
  let open: { start: number; causes: Set<number> } | undefined;
  for (const [i, at] of edges.entries()) {
    const active = clusterFaults.filter((f) => f.startedAt <= at && at < f.endedAt);
    const outOfQuorum = new Set(active.filter((f) => QUORUM_FAULTS.has(f.kind)).flatMap((f) => f.members));
    const outOfReach = new Set([...outOfQuorum, ...active.filter((f) => CLIENT_LINK_FAULTS.has(f.kind)).flatMap((f) => f.members)]);
    const down = members - outOfQuorum.size < majority || outOfReach.size >= members;
    if (down) {
      open ??= { start: at, causes: new Set() };
      for (const f of active) open.causes.add(f.id);
    } else if (open !== undefined) {
      const why = outOfQuorum.size > 0 ? 'no majority, or none of it in reach' : 'no member in reach';
      excused.push({ start: open.start, end: at + grace, why: `${why} (faults #${[...open.causes].sort((a, b) => a - b).join(', #')})` });
      open = undefined;
    }
    if (i === edges.length - 1 && open !== undefined) excused.push({ start: open.start, end: at + grace, why: 'no majority' });
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
