import { describe, expect, it } from 'vitest';
import { acquire, renew } from '../history.fixtures.js';
import type { RecordedOp } from '../types.js';
import type { AppliedFault } from './apply.js';
import { checkCallerErrors, excusedIntervals } from './caller-errors.js';
import type { FaultKind } from './schedule.js';

let ids = 0;
function applied(kind: FaultKind, startedAt: number, endedAt: number, extra: Partial<AppliedFault> = {}): AppliedFault {
  return { id: ids++, kind, atMs: 0, holdMs: endedAt - startedAt, members: [], startedAt, injectedAt: startedAt, healStartedAt: endedAt, endedAt, ...extra };
}
const error = { outcome: 'error' } as const;
/** Clients are named p<process>.h<holder>. */
const options = { processOf: (op: RecordedOp) => Number(/^p(\d+)/.exec(op.client)?.[1]), graceMs: 100 };
const from = (process: number, op: RecordedOp): RecordedOp => ({ ...op, client: `p${process}.h0` });

describe('excusedIntervals', () => {
  it('a majority out: from the fault that took it to the heal that gave it back, plus the grace', () => {
    const timeline = [applied('kill', 0, 1000, { members: [0] }), applied('pause', 500, 2000, { members: [1] }), applied('blackhole', 1500, 3000, { members: [0] })];
    expect(excusedIntervals(timeline, options).map(({ start, end }) => [start, end])).toEqual([
      [500, 1100],
      [1500, 2100],
    ]);
    expect(excusedIntervals([applied('quorum-loss', 10, 20, { members: [0, 1] })], options).map(({ start, end }) => [start, end])).toEqual([[10, 120]]);
  });

  it('one member out, a cut or slow link, a clock step excuse nothing', () => {
    const timeline = [
      applied('kill', 0, 1000, { members: [0] }),
      applied('cut-link', 0, 1000, { members: [1] }),
      applied('slow-link', 0, 1000, { members: [2] }),
      applied('clock-step', 10, 10, { process: 0 }),
    ];
    expect(excusedIntervals(timeline, options)).toEqual([]);
  });

  it('NOSPACE excuses every call; a flood or a suspend only its process', () => {
    const timeline = [applied('nospace', 0, 100), applied('flood', 200, 300, { process: 1 }), applied('suspend', 400, 500, { process: 2 })];
    expect(excusedIntervals(timeline, options).map(({ start, end, process }) => [start, end, process])).toEqual([
      [0, 200, undefined],
      [200, 400, 1],
      [400, 600, 2],
    ]);
  });
});

describe('checkCallerErrors', () => {
  it('flags an error with a majority healthy, and none in an excused stretch of its process', () => {
    const timeline = [applied('kill', 0, 1000, { members: [0] }), applied('flood', 2000, 3000, { process: 1 })];
    const flagged = from(0, renew('A', 500, 600, error));
    const history = [flagged, from(1, renew('B', 2500, 2600, error)), from(0, acquire('C', 2500, 2600)), from(1, acquire('D', 5000, 5001, error))];
    expect(checkCallerErrors(history, timeline, options)).toEqual([flagged, history[3]]);
    expect(checkCallerErrors([from(0, renew('B', 2500, 2600, error))], timeline, options)).toHaveLength(1);
  });

  it('excuses a call whose flight only touches the excused stretch', () => {
    const timeline = [applied('quorum-loss', 1000, 2000, { members: [0, 1] })];
    expect(checkCallerErrors([from(0, renew('A', 500, 1000, error)), from(0, renew('A', 2100, 2200, error))], timeline, options)).toEqual([]);
    expect(checkCallerErrors([from(0, renew('A', 2101, 2200, error))], timeline, options)).toHaveLength(1);
  });
});

describe('a workload with fewer processes than the schedule aims at', () => {
  it('excuses the process the fault reached: p % processes', () => {
    const timeline = [applied('suspend', 0, 100, { process: 3 })];
    expect(checkCallerErrors([from(1, renew('A', 10, 20, error))], timeline, { ...options, processes: 2 })).toEqual([]);
    expect(checkCallerErrors([from(0, renew('A', 10, 20, error))], timeline, { ...options, processes: 2 })).toHaveLength(1);
  });
});
