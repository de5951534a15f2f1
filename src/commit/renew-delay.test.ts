import { describe, expect, it } from 'vitest';
import { renewDelayMs } from './renew-delay.js';

const base = { now: 10_000, ttlMs: 15_000, windowMs: 250, protectedUntil: 25_000, marginMs: 500 };

describe('renew delay bound', () => {
  it('waits the window when the protected lease is far off', () => {
    expect(renewDelayMs(base)).toBe(250);
  });

  it('never waits more than a twentieth of the TTL', () => {
    expect(renewDelayMs({ ...base, ttlMs: 1_000, windowMs: 1_000 })).toBe(50);
  });

  it('leaves one margin before the protected lease could end', () => {
    expect(renewDelayMs({ ...base, windowMs: 5_000, protectedUntil: 10_700 })).toBe(200);
  });

  it('does not wait once the margin is reached or passed', () => {
    expect(renewDelayMs({ ...base, protectedUntil: 10_500 })).toBe(0);
    expect(renewDelayMs({ ...base, protectedUntil: 9_000 })).toBe(0);
  });

  it('does not wait when the protected lease is unknown (written elsewhere) or waiting is off', () => {
    expect(renewDelayMs({ ...base, protectedUntil: undefined })).toBe(0);
    expect(renewDelayMs({ ...base, windowMs: 0 })).toBe(0);
  });

  it('never sends later than protectedUntil − margin, for any inputs', () => {
    for (let i = 0; i < 1000; i++) {
      const input = {
        now: Math.random() * 1e6,
        ttlMs: 1 + Math.random() * 60_000,
        windowMs: Math.random() * 2_000,
        protectedUntil: Math.random() * 1e6,
        marginMs: Math.random() * 2_000,
      };
      const d = renewDelayMs(input);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(Math.min(input.windowMs, input.ttlMs / 20));
      if (d > 0) expect(input.now + d).toBeLessThanOrEqual(input.protectedUntil - input.marginMs);
    }
  });
});
