import { describe, expect, it } from 'vitest';
import { CLIENT_FAULTS, FAULT_KINDS, generateSchedule, overlappingPairs, type FaultSchedule, type ScheduledFault } from './schedule.js';

const SEEDS = Array.from({ length: 200 }, (_, i) => i * 7919 + 1);
const options = (seed: number) => ({ seed, spanMs: 40_000 });
const end = (f: ScheduledFault) => f.atMs + f.holdMs;
const overlap = (a: ScheduledFault, b: ScheduledFault) => b.atMs < end(a) && a.atMs < end(b);

function pairs(schedule: FaultSchedule): Array<[ScheduledFault, ScheduledFault]> {
  return schedule.faults.flatMap((a, i) => schedule.faults.slice(i + 1).map((b): [ScheduledFault, ScheduledFault] => [a, b]));
}

describe('generateSchedule', () => {
  it('is deterministic: one seed, one schedule; another seed, another', () => {
    expect(generateSchedule(options(42))).toEqual(generateSchedule(options(42)));
    expect(generateSchedule(options(43)).faults).not.toEqual(generateSchedule(options(42)).faults);
  });

  it('overlaps faults in every schedule, cluster faults with client faults and with each other', () => {
    for (const seed of SEEDS) {
      const schedule = generateSchedule(options(seed));
      const overlapping = overlappingPairs(schedule);
      expect(overlapping.length, `seed ${seed}`).toBeGreaterThan(0);
    }
    const all = SEEDS.flatMap((seed) => overlappingPairs(generateSchedule(options(seed))));
    const cluster = (f: ScheduledFault) => !CLIENT_FAULTS.has(f.kind);
    expect(all.filter(([a, b]) => cluster(a) && cluster(b)).length).toBeGreaterThan(100);
    expect(all.filter(([a, b]) => cluster(a) !== cluster(b)).length).toBeGreaterThan(100);
  });

  it('meets every kind in a 40 s span, each held as long as production faults last', () => {
    for (const seed of SEEDS) {
      const { faults } = generateSchedule(options(seed));
      expect(new Set(faults.map((f) => f.kind)), `seed ${seed}`).toEqual(new Set(FAULT_KINDS));
      for (const f of faults) {
        if (f.kind === 'clock-step') expect(Math.abs(f.stepMs!)).toBeGreaterThanOrEqual(3000);
        else expect(f.holdMs).toBeGreaterThanOrEqual(2000);
      }
      expect(faults.find((f) => f.kind === 'quorum-loss')!.holdMs).toBe(20_000);
    }
  });

  it('clock steps go both ways', () => {
    const steps = SEEDS.flatMap((seed) => generateSchedule(options(seed)).faults.filter((f) => f.kind === 'clock-step'));
    expect(steps.some((f) => f.stepMs! > 0)).toBe(true);
    expect(steps.some((f) => f.stepMs! < 0)).toBe(true);
  });

  it('never hits one member with two faults at once; a NOSPACE overlaps no cluster fault; one outage at most', () => {
    for (const seed of SEEDS) {
      const schedule = generateSchedule(options(seed));
      for (const [a, b] of pairs(schedule)) {
        if (!overlap(a, b)) continue;
        expect(a.members.filter((m) => b.members.includes(m)), `seed ${seed}: #${a.id} and #${b.id}`).toEqual([]);
        if (a.kind === 'nospace' || b.kind === 'nospace') expect([a, b].filter((f) => !CLIENT_FAULTS.has(f.kind)).length).toBe(1);
        if (a.kind === b.kind && a.kind !== 'clock-step' && CLIENT_FAULTS.has(a.kind)) expect(a.process).not.toBe(b.process);
      }
      expect(schedule.faults.filter((f) => f.kind === 'quorum-loss').length).toBeLessThanOrEqual(1);
      expect(schedule.faults.every((f) => f.atMs < schedule.spanMs)).toBe(true);
      expect(schedule.faults.map((f) => f.atMs)).toEqual([...schedule.faults.map((f) => f.atMs)].sort((x, y) => x - y));
    }
  });

  it('draws only the kinds asked for, and takes a majority of a larger cluster for an outage', () => {
    const { faults } = generateSchedule({ seed: 5, spanMs: 60_000, members: 5, kinds: ['quorum-loss', 'clock-step'] });
    expect(new Set(faults.map((f) => f.kind))).toEqual(new Set(['quorum-loss', 'clock-step']));
    expect(faults.find((f) => f.kind === 'quorum-loss')!.members).toHaveLength(3);
  });

  it('rejects bad options with the parameter named', () => {
    expect(() => generateSchedule({ seed: -1, spanMs: 1000 })).toThrow(/options\.seed/);
    expect(() => generateSchedule({ seed: 1, spanMs: 0 })).toThrow(/options\.spanMs/);
    expect(() => generateSchedule({ seed: 1, spanMs: 1000, members: 2 })).toThrow(/options\.members/);
    expect(() => generateSchedule({ seed: 1, spanMs: 1000, kinds: [] })).toThrow(/options\.kinds/);
    expect(() => generateSchedule({ seed: 1, spanMs: 1000, kinds: ['meteor' as never] })).toThrow(/unknown fault kind 'meteor'/);
    expect(() => generateSchedule({ seed: 1, spanMs: 1000, gapMs: [5, 1] })).toThrow(/options\.gapMs/);
  });
});
