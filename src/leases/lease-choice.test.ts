import { describe, expect, it } from 'vitest';
import { chooseLease, maxSlackMs, shouldPrefetch, ttlSecondsFor } from './lease-choice.js';

describe('lease choice', () => {
  it('never picks a lease that may expire before the key must', () => {
    const leases = [{ id: 'early', notBefore: 9_999 }, { id: 'ok', notBefore: 10_500 }];
    expect(chooseLease(leases, 10_000, 1000)?.id).toBe('ok');
  });

  it('picks the tightest fitting lease, so keys outlive ttl by as little as possible', () => {
    const leases = [{ id: 'late', notBefore: 11_500 }, { id: 'tight', notBefore: 10_100 }, { id: 'mid', notBefore: 10_900 }];
    expect(chooseLease(leases, 10_000, 1000)?.id).toBe('tight');
  });

  it('refuses leases that would keep a key alive past the slack bound', () => {
    expect(chooseLease([{ id: 'far', notBefore: 10_000 + maxSlackMs(1000) + 1 }], 10_000, 1000)).toBeUndefined();
    expect(chooseLease([{ id: 'edge', notBefore: 10_000 + maxSlackMs(1000) }], 10_000, 1000)?.id).toBe('edge');
  });

  it('a new lease outlives the need by at least one bucket and at most the slack bound', () => {
    for (const [need, now, bucket] of [
      [15_000, 0, 1000],
      [15_001, 0, 1000],
      [2_500, 1_000, 500],
      [100, 50, 1000],
    ] as const) {
      const notBefore = now + ttlSecondsFor(need, now, bucket) * 1000;
      expect(notBefore).toBeGreaterThanOrEqual(need + bucket);
      expect(notBefore - need).toBeLessThanOrEqual(maxSlackMs(bucket) + Math.max(0, 1000 - (need - now + bucket)));
    }
  });

  it('asks for a successor only when the chosen lease is about to stop fitting', () => {
    expect(shouldPrefetch({ id: 'x', notBefore: 16_000 }, 0, 15_000, 1000)).toBe(false);
    expect(shouldPrefetch({ id: 'x', notBefore: 15_400 }, 0, 15_000, 1000)).toBe(true);
  });
});
