import { describe, expect, it } from 'vitest';
import { ArrivalRate } from './arrival-rate.js';

describe('arrival rate', () => {
  it('reads a steady rate as the arrivals expected in a window', () => {
    const rate = new ArrivalRate(1000);
    for (let t = 0; t < 10_000; t += 5) rate.arrive(t); // 200 per second
    expect(rate.expectedWithin(250, 10_000)).toBeGreaterThan(45);
    expect(rate.expectedWithin(250, 10_000)).toBeLessThan(55);
  });

  it('forgets a burst once it is over', () => {
    const rate = new ArrivalRate(1000);
    for (let i = 0; i < 100; i++) rate.arrive(0);
    expect(rate.expectedWithin(1000, 0)).toBe(100);
    expect(rate.expectedWithin(1000, 5000)).toBeLessThan(1);
  });

  it('expects nothing before anything arrived', () => {
    expect(new ArrivalRate().expectedWithin(250, 0)).toBe(0);
  });
});
