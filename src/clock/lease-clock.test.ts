import { describe, expect, it } from 'vitest';
import { LeaseClock } from './lease-clock.js';

function rawClocks() {
  const state = { monotonic: 1_000, wall: 1_700_000_000_000 };
  return { state, source: { monotonic: () => state.monotonic, wall: () => state.wall } };
}

describe('lease clock', () => {
  it('advances with real time when both raw clocks agree', () => {
    const { state, source } = rawClocks();
    const clock = new LeaseClock(source);
    const t0 = clock.now();
    state.monotonic += 250;
    state.wall += 250;
    expect(clock.now() - t0).toBe(250);
  });

  it('counts a suspend, during which the monotonic clock stood still', () => {
    const { state, source } = rawClocks();
    const clock = new LeaseClock(source);
    const jumps: number[] = [];
    clock.onJump((ms) => jumps.push(ms));
    const t0 = clock.now();
    state.wall += 4_000; // suspended for 4 s
    state.monotonic += 3; // a few ms ran before and after
    expect(clock.now() - t0).toBe(4_000);
    expect(jumps).toEqual([3_997]);
  });

  it('keeps counting when the wall clock is stepped back', () => {
    const { state, source } = rawClocks();
    const clock = new LeaseClock(source);
    const t0 = clock.now();
    state.wall -= 60_000;
    state.monotonic += 100;
    const t1 = clock.now();
    expect(t1 - t0).toBe(100);
    state.wall += 100;
    state.monotonic += 100;
    expect(clock.now() - t1).toBe(100);
  });

  it('never goes back and never reports a jump for ordinary drift', () => {
    const { state, source } = rawClocks();
    const clock = new LeaseClock(source);
    const jumps: number[] = [];
    clock.onJump((ms) => jumps.push(ms));
    let last = clock.now();
    for (let i = 0; i < 100; i++) {
      state.monotonic += 10;
      state.wall += i % 2 === 0 ? 12 : 8;
      const now = clock.now();
      expect(now).toBeGreaterThanOrEqual(last);
      last = now;
    }
    expect(jumps).toEqual([]);
  });
});
