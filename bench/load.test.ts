import { describe, expect, it } from 'vitest';
import { runLoad } from './load.js';

/** A clock that only moves when an operation says so, so tests do not depend on machine speed. */
function fakeClock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('closed-loop load', () => {
  it('stops at maxOps and hands every call a distinct sequence number', async () => {
    const seen = new Set<number>();
    const clock = fakeClock();
    const r = await runLoad(async (_caller, seq) => (seen.add(seq), clock.advance(1), true), { callers: 8, durationMs: 1e9, maxOps: 100, now: clock.now });
    expect(r.ops).toBe(100);
    expect(seen.size).toBe(100);
    expect(r.latency.count).toBe(100);
  });

  it('stops sending once the duration has passed', async () => {
    const clock = fakeClock();
    const r = await runLoad(async () => (clock.advance(10), true), { callers: 1, durationMs: 100, maxOps: 1e6, now: clock.now });
    expect(r.ops).toBe(10);
    expect(r.elapsedMs).toBe(100);
  });

  it('keeps each caller to one operation in flight', async () => {
    let inFlight = 0;
    let most = 0;
    await runLoad(
      async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        return true;
      },
      { callers: 5, durationMs: 1e9, maxOps: 50 },
    );
    expect(most).toBe(5);
  });

  it('counts throws and unexpected results as errors and keeps the first message', async () => {
    const r = await runLoad(
      async (_c, seq) => {
        if (seq === 1) throw new Error('boom');
        return seq !== 2;
      },
      { callers: 1, durationMs: 1e9, maxOps: 4 },
    );
    expect(r.errors).toBe(2);
    expect(r.ops).toBe(4);
    expect(r.firstError).toBe('Error: boom');
  });

  it('gives up after maxErrors instead of spinning on a broken scenario', async () => {
    const r = await runLoad(async () => false, { callers: 4, durationMs: 1e9, maxOps: 1e6, maxErrors: 10 });
    expect(r.errors).toBeGreaterThanOrEqual(10);
    expect(r.errors).toBeLessThan(10 + 4); // at most one more per caller already in flight
  });

  it('paces operations to the arrival schedule and does not count the wait as latency', async () => {
    const clock = fakeClock();
    const sentAt: number[] = [];
    const r = await runLoad(
      async () => {
        sentAt.push(clock.now());
        clock.advance(1);
        return true;
      },
      { callers: 1, durationMs: 1e9, maxOps: 5, intervalMs: 10, now: clock.now, sleepUntil: async (time) => void clock.advance(time - clock.now()) },
    );
    expect(sentAt).toEqual([0, 10, 20, 30, 40]);
    expect(r.latency.max).toBe(1);
  });
});
