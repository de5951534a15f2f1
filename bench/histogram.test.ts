import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from './histogram.js';

function of(samples: number[]): LatencyHistogram {
  const h = new LatencyHistogram();
  for (const s of samples) h.record(s);
  return h;
}

describe('latency histogram', () => {
  it('reports a percentile at most 1 % above the true nearest-rank sample, never below', () => {
    const samples = Array.from({ length: 1000 }, (_, i) => 0.05 + i * 0.0137);
    const h = of(samples);
    for (const p of [1, 50, 90, 99, 99.9]) {
      const truth = samples[Math.ceil((p / 100) * samples.length) - 1]!;
      expect(h.percentile(p)).toBeGreaterThanOrEqual(truth);
      expect(h.percentile(p)).toBeLessThanOrEqual(truth * 1.01);
    }
  });

  it('p100 is exactly the largest sample, and the mean is exact', () => {
    const h = of([1, 2, 3, 10.123]);
    expect(h.percentile(100)).toBe(10.123);
    expect(h.max).toBe(10.123);
    expect(h.mean).toBeCloseTo(4.03075, 10);
  });

  it('orders by value, not by insertion', () => {
    const median = of([9, 10, 100, 2, 1]).percentile(50);
    expect(median).toBeGreaterThanOrEqual(9);
    expect(median).toBeLessThanOrEqual(9.09);
  });

  it('merging histograms equals recording every sample into one', () => {
    const a = [0.3, 1.2, 5, 7.7];
    const b = [0.002, 2.5, 40_000];
    const merged = of(a).add(of(b));
    const direct = of([...a, ...b]);
    for (const p of [0, 25, 50, 75, 100]) expect(merged.percentile(p)).toBe(direct.percentile(p));
    expect(merged.count).toBe(7);
  });

  it('keeps sub-microsecond and huge samples instead of dropping them', () => {
    const h = of([0, 0.0001, 5e7]);
    expect(h.count).toBe(3);
    expect(h.percentile(100)).toBe(5e7);
  });

  it('is NaN when empty and rejects p outside [0, 100]', () => {
    const h = new LatencyHistogram();
    expect(h.percentile(50)).toBeNaN();
    expect(h.mean).toBeNaN();
    expect(() => h.percentile(-1)).toThrow(RangeError);
  });
});
