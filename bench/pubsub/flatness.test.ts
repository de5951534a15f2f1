import { describe, expect, it } from 'vitest';

import { judgeFlatness, type Point } from './flatness.js';

// One sample every 10 s for 240 s.
const series = (bytesAt: (t: number) => number): Point[] => Array.from({ length: 25 }, (_, i) => ({ t: i * 10, bytes: bytesAt(i * 10) }));

describe('judgeFlatness', () => {
  it('passes a sawtooth whose peaks stay level, even when a sample falls in a trough', () => {
    const tooth = series((t) => 2e6 + (t % 30) * 40_000);
    const verdict = judgeFlatness(tooth, 120, 60, 240, 1.2);
    expect(verdict.flat).toBe(true);
    expect(verdict.ratio).toBeCloseTo(1, 5);
  });

  it('fails a series that keeps growing from the start (no compaction) at the default tolerance', () => {
    const verdict = judgeFlatness(series((t) => 100_000 + t * 50_000), 120, 60, 240, 1.2);
    expect(verdict.flat).toBe(false);
    expect(verdict.lastPeak).toBe(100_000 + 240 * 50_000);
    expect(verdict.ratio).toBeCloseTo(12.1 / 9.1, 5);
  });

  it('refuses a run too short for two windows after the warm-up', () => {
    expect(() => judgeFlatness(series(() => 1), 120, 60, 200, 1.5)).toThrow(/at least/);
  });
});
