import { describe, expect, it } from 'vitest';
import { chooseLease, later, maxSlackMs, reaches, shouldPrefetch, ttlSecondsFor, type PooledLease, type Reach } from './lease-choice.js';

/** A lease or need whose two scales agree (no step, no suspend since the clock started). */
const at = (ms: number): Reach => ({ notBefore: ms, steadyNotBefore: ms });
const lease = (id: string, ms: number): PooledLease => ({ id, ...at(ms) });
const moment = (ms: number) => ({ at: ms, steady: ms });

describe('lease choice', () => {
  it('never picks a lease that may expire before the key must', () => {
    const leases = [lease('early', 9_999), lease('ok', 10_500)];
    expect(chooseLease(leases, at(10_000), 1000)?.id).toBe('ok');
  });

  it('picks the tightest fitting lease, so keys outlive ttl by as little as possible', () => {
    const leases = [lease('late', 11_500), lease('tight', 10_100), lease('mid', 10_900)];
    expect(chooseLease(leases, at(10_000), 1000)?.id).toBe('tight');
  });

  it('refuses leases that would keep a key alive past the slack bound', () => {
    expect(chooseLease([lease('far', 10_000 + maxSlackMs(1000) + 1)], at(10_000), 1000)).toBeUndefined();
    expect(chooseLease([lease('edge', 10_000 + maxSlackMs(1000))], at(10_000), 1000)?.id).toBe('edge');
  });

  it('a lease must reach the need on both scales: one granted before a step is short on the lease-clock scale, one after it on the steady one', () => {
    // A call sent at 0 on both scales, for 6 s; the wall then stepped 12 s forward.
    const need = at(6_000);
    expect(chooseLease([{ id: 'before', notBefore: 5_000, steadyNotBefore: 5_000 }], need, 1000)).toBeUndefined();
    // Granted after the step for 1 s: 13.5 s on the lease-clock scale, but only 1.5 s of real time after the call.
    expect(chooseLease([{ id: 'short', notBefore: 13_500, steadyNotBefore: 1_500 }], need, 1000)).toBeUndefined();
    expect(chooseLease([{ id: 'sized', notBefore: 19_500, steadyNotBefore: 7_500 }], need, 1000)?.id).toBe('sized');
    expect(reaches(at(7_000), later(at(6_000), { notBefore: 7_000, steadyNotBefore: 2_000 }))).toBe(true);
    expect(reaches({ notBefore: 7_000, steadyNotBefore: 1_000 }, later(at(6_000), at(2_000)))).toBe(false);
  });

  it('a new lease outlives the need by at least one bucket and at most the slack bound', () => {
    for (const [need, now, bucket] of [
      [15_000, 0, 1000],
      [15_001, 0, 1000],
      [2_500, 1_000, 500],
      [100, 50, 1000],
    ] as const) {
      const notBefore = now + ttlSecondsFor(at(need), moment(now), bucket) * 1000;
      expect(notBefore).toBeGreaterThanOrEqual(need + bucket);
      expect(notBefore - need).toBeLessThanOrEqual(maxSlackMs(bucket) + Math.max(0, 1000 - (need - now + bucket)));
    }
  });

  it('sizes a grant by the scale on which the need is furthest away', () => {
    // Sent at 0, 500 ms ago by the steady scale; the lease-clock scale counts a 12 s step as well.
    expect(ttlSecondsFor(at(6_000), { at: 12_500, steady: 500 }, 1000)).toBe(7);
  });

  it('asks for a successor only when the chosen lease is about to stop fitting', () => {
    expect(shouldPrefetch(lease('x', 16_000), moment(0), 15_000, 1000)).toBe(false);
    expect(shouldPrefetch(lease('x', 15_400), moment(0), 15_000, 1000)).toBe(true);
  });
});
