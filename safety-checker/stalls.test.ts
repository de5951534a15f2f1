import { describe, expect, it } from 'vitest';
import { longestStall, summarize } from './stalls.js';
import { acquire, release, renew } from './history.fixtures.js';

describe('longestStall', () => {
  it('is the longest gap between completions of ok operations, from the first send to the last return', () => {
    const history = [acquire('A', 0, 2), renew('A', 30, 35), renew('A', 60, 100), release('A', 101, 103)];
    expect(longestStall(history)).toEqual({ start: 35, end: 100, durationMs: 65 });
  });

  it('does not count errors as progress', () => {
    const history = [acquire('A', 0, 1), renew('A', 10, 40, { outcome: 'error' }), renew('A', 60, 70)];
    expect(longestStall(history)).toEqual({ start: 1, end: 70, durationMs: 69 });
  });

  it('counts a lost outcome as progress: etcd answered and named the holder', () => {
    const history = [
      acquire('A', 0, 1),
      renew('A', 10, 40, { outcome: 'error' }),
      acquire('B', 10, 50, { outcome: 'lost' }),
      renew('A', 60, 70),
    ];
    expect(longestStall(history)).toEqual({ start: 1, end: 50, durationMs: 49 });
  });

  it('counts the gap from the start of the range to the first completion', () => {
    expect(longestStall([acquire('A', 0, 80), renew('A', 81, 82)])).toEqual({ start: 0, end: 80, durationMs: 80 });
  });

  it('counts the gap from the last completion to the end of the range', () => {
    const history = [acquire('A', 0, 1), renew('A', 5, 90, { outcome: 'error' })];
    expect(longestStall(history)).toEqual({ start: 1, end: 90, durationMs: 89 });
  });

  it('restricted to a range, ignores completions outside it and measures to its bounds', () => {
    // A long stall before the fault at 50 must not mask the recovery time after it.
    const history = [acquire('A', 0, 1), renew('A', 2, 45), renew('A', 50, 60, { outcome: 'error' }), renew('A', 61, 75)];
    expect(longestStall(history, 50)).toEqual({ start: 50, end: 75, durationMs: 25 });
    expect(longestStall(history, 50, 70)).toEqual({ start: 50, end: 70, durationMs: 20 });
    expect(longestStall(history, 0, 10)).toEqual({ start: 1, end: 10, durationMs: 9 });
  });

  it('concurrent clients keep each other from stalling', () => {
    const history = [acquire('A', 0, 1), acquire('B', 0, 50, { key: 'k2' }), renew('A', 90, 100)];
    // Without B's completion at 50 this would be one 99 ms stall (1 → 100).
    expect(longestStall(history)).toEqual({ start: 50, end: 100, durationMs: 50 });
  });

  it('an empty history has no stall; an empty range is all stall', () => {
    expect(longestStall([])).toEqual({ start: 0, end: 0, durationMs: 0 });
    expect(longestStall([], 10, 30)).toEqual({ start: 10, end: 30, durationMs: 20 });
  });

  it('rejects a range that ends before it starts', () => {
    expect(() => longestStall([], 30, 10)).toThrow(RangeError);
  });
});

describe('summarize', () => {
  it('counts operations, errors, overlapping pairs and the longest stall', () => {
    const history = [
      acquire('A', 0, 1),
      acquire('B', 10, 11),
      renew('A', 20, 30, { outcome: 'error' }),
      release('B', 40, 41),
      acquire('C', 50, 60, { outcome: 'error' }),
    ];
    expect(summarize(history)).toEqual({ ops: 5, errors: 2, overlaps: 1, longestStallMs: 30 });
  });

  it('a clean history has no overlaps', () => {
    expect(summarize([acquire('A', 0, 1), release('A', 5, 6), acquire('B', 7, 8)])).toEqual({
      ops: 3,
      errors: 0,
      overlaps: 0,
      longestStallMs: 5,
    });
  });
});
