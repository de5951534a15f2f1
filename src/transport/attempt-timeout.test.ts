import { describe, expect, it } from 'vitest';
import { AttemptTimeout } from './attempt-timeout.js';

describe('attempt timeout', () => {
  it('stays at the floor while the cluster answers fast', () => {
    const t = new AttemptTimeout(500);
    for (let i = 0; i < 100; i++) t.observe(2 + (i % 3));
    expect(t.baseMs).toBe(500);
  });

  it('rises above slow commits, so attempts stop timing out after committing', () => {
    const t = new AttemptTimeout(500);
    for (let i = 0; i < 50; i++) t.observe(800 + (i % 2) * 200);
    expect(t.baseMs).toBeGreaterThan(1000);
    expect(t.baseMs).toBeLessThan(2000);
  });

  it('comes back down when the cluster recovers', () => {
    const t = new AttemptTimeout(500);
    for (let i = 0; i < 50; i++) t.observe(1500);
    for (let i = 0; i < 200; i++) t.observe(3);
    expect(t.baseMs).toBe(500);
  });

  it('doubles for each timed-out attempt of one call, never past what is left of its deadline', () => {
    const t = new AttemptTimeout(500);
    expect([0, 1, 2, 3].map((n) => t.forAttempt(n, 5000))).toEqual([500, 1000, 2000, 4000]);
    expect(t.forAttempt(4, 3000)).toBe(3000);
    expect(t.forAttempt(0, 0)).toBe(1);
  });

  it('learns from a timeout before any answer: the next attempts of every call get twice the time', () => {
    const t = new AttemptTimeout(500);
    t.timedOut(500);
    expect(t.baseMs).toBe(1000);
    // The other attempts of the same batch were sent with 500 ms and time out with it: they count once.
    for (let i = 0; i < 10; i++) t.timedOut(500);
    expect(t.baseMs).toBe(1000);
    t.timedOut(1000);
    expect(t.baseMs).toBe(1000);
    // A call's own timeouts still double its own next attempt.
    expect(t.forAttempt(2, 10_000)).toBe(2000);
  });

  it('grows at most twofold, and the first answer hands back to the estimate', () => {
    const t = new AttemptTimeout(500);
    for (let i = 0; i < 10; i++) t.timedOut(t.baseMs);
    expect(t.baseMs).toBe(1000);
    t.observe(900);
    expect(t.baseMs).toBe(900 + 4 * 450);
  });
});
