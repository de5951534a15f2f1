import { GRPCDeadlineExceededError } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { POLICY } from '../policy.js';
import { CallRunner } from './call-runner.js';

// Which estimate an attempt is timed by and teaches: writes (commits through Raft) and reads learn apart.
const FLOOR_MS = 100;
const budget = { deadlineMs: 10_000 };
const slowly = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms));

describe('CallRunner: the writes’ and the reads’ attempt timeouts', () => {
  it('a fast read’s answer teaches the reads’ timeout only: the writes keep what their own timeouts taught', async () => {
    const runner = new CallRunner(FLOOR_MS, 'p/');
    let first = true;
    // A write whose first attempt timed out (a slow commit), then answered: the writes' timeout grew, then learnt.
    await runner.run('leaseGrant', budget, async () => {
      if (first) {
        first = false;
        throw new GRPCDeadlineExceededError('timed out');
      }
      return slowly(150, 'granted');
    });
    const writesBefore = runner.timeouts.baseMs;
    expect(writesBefore).toBeGreaterThan(FLOOR_MS);
    // A read answered at once.
    await runner.read('leaseTimeToLive', budget, async () => 'ttl');
    expect(runner.timeouts.baseMs).toBe(writesBefore);
    expect(runner.readTimeouts.baseMs).toBe(FLOOR_MS);
  });

  it('a read is timed by the reads’ timeout and a write by the writes’', async () => {
    const runner = new CallRunner(FLOOR_MS, 'p/');
    runner.timeouts.observe(2_000);
    const given: Record<string, number> = {};
    await runner.run('leaseGrant', budget, async (ctx) => (given.write = ctx.timeoutMs));
    await runner.read('range', budget, async (ctx) => (given.read = ctx.timeoutMs));
    expect(given.write).toBeGreaterThanOrEqual(2_000);
    expect(given.read).toBe(FLOOR_MS);
  });

  it('a read that times out grows the reads’ timeout, not the writes’', async () => {
    const runner = new CallRunner(FLOOR_MS, 'p/');
    let tries = 0;
    const seen: Array<[number, number]> = [];
    await runner.read('range', budget, async () => {
      seen.push([runner.readTimeouts.baseMs, runner.timeouts.baseMs]);
      if (tries++ === 0) throw new GRPCDeadlineExceededError('timed out');
      return 'ok';
    });
    // [reads', writes'] base timeout when each attempt ran: the timeout grew the reads' only.
    expect(seen).toEqual([
      [FLOOR_MS, FLOOR_MS],
      [POLICY.timeoutGrowth * FLOOR_MS, FLOOR_MS],
    ]);
  });
});
