import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from './histogram.js';
import { combine, medianRatio, perKey, summarize, throughput } from './stats.js';

function hist(samples: number[]): LatencyHistogram {
  const h = new LatencyHistogram();
  for (const s of samples) h.record(s);
  return h;
}

describe('throughput', () => {
  it('is operations per second of elapsed time', () => {
    expect(throughput(500, 250)).toBe(2000);
  });

  it('is 0, not Infinity, when no time elapsed', () => {
    expect(throughput(0, 0)).toBe(0);
    expect(throughput(5, 0)).toBe(0);
  });
});

describe('combining rounds', () => {
  it('weighs rounds by their length: total ops over total time', () => {
    const fast = { ops: 1000, errors: 0, elapsedMs: 100, latency: hist([1]) };
    const slow = { ops: 1000, errors: 1, elapsedMs: 900, latency: hist([2, 3]) };
    const all = combine([fast, slow]);
    expect(throughput(all.ops, all.elapsedMs)).toBe(2000); // not the mean of 10 000 and 1 111
    expect(all.errors).toBe(1);
    expect(all.latency.count).toBe(3);
    expect(all.latency.percentile(100)).toBe(3);
    expect(fast.latency.count).toBe(1); // the rounds themselves are left as they were
  });

  it('summarizes latency and rate together', () => {
    const s = summarize({ ops: 4, errors: 0, elapsedMs: 2, latency: hist([4, 1, 3, 2]) });
    expect(s.p50).toBeGreaterThanOrEqual(2);
    expect(s.p50).toBeLessThanOrEqual(2.02);
    expect(s).toMatchObject({ p99: 4, max: 4, mean: 2.5, opsPerSecond: 2000 });
  });

  it('per-key figures scale counts and rate but not latency', () => {
    const s = perKey(summarize({ ops: 10, errors: 0, elapsedMs: 10, latency: hist(Array(10).fill(1)) }), 64);
    expect(s.ops).toBe(640);
    expect(s.opsPerSecond).toBe(64_000);
    expect(s.p50).toBe(1);
  });
});

describe('paired ratios', () => {
  it('median of per-round ratios ignores one disturbed round', () => {
    // Round 2 ran while the machine was busy: both sides slowed, the ratio barely moved.
    expect(medianRatio([1.1, 5.5, 1.2], [1.0, 5.0, 1.0])).toBeCloseTo(1.1);
  });

  it('takes the lower middle of an even count and skips rounds that measured nothing', () => {
    expect(medianRatio([1, 2, 3, 4], [1, 1, 1, 1])).toBe(2);
    expect(medianRatio([1, 5], [0, 1])).toBe(5);
    expect(medianRatio([], [])).toBeNaN();
  });

  it('refuses series of different lengths', () => {
    expect(() => medianRatio([1], [1, 2])).toThrow(RangeError);
  });
});
