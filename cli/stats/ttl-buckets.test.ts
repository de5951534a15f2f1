import { describe, expect, it } from 'vitest';
import { bucketLabel, TtlHistogram } from './ttl-buckets.js';

describe('TtlHistogram', () => {
  it('puts each TTL in exactly one bucket: lower bound inclusive, upper exclusive', () => {
    const h = new TtlHistogram();
    for (const ms of [0, 4000, 5000, 14_000, 29_000, 30_000, 59_000, 299_000, 300_000, 3_600_000, 9_000_000]) h.add(ms);
    expect(h.buckets().map((b) => [bucketLabel(b), b.leases])).toEqual([
      ['0s–5s', 2],
      ['5s–15s', 2],
      ['15s–30s', 1],
      ['30s–1min', 2],
      ['1min–5min', 1],
      ['5min–15min', 1],
      ['15min–1h', 0],
      ['1h+', 2],
    ]);
    expect(h.buckets().reduce((n, b) => n + b.leases, 0)).toBe(h.count);
  });

  it('min, median and max by nearest rank over whole seconds', () => {
    const h = new TtlHistogram();
    for (const ms of [3000, 1000, 2000, 10_000]) h.add(ms);
    expect([h.quantileMs(0), h.quantileMs(0.5), h.quantileMs(1)]).toEqual([1000, 2000, 10_000]);
  });

  it('has no quantiles when empty', () => {
    expect(new TtlHistogram().quantileMs(0.5)).toBeNull();
  });
});
