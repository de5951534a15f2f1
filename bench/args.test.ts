import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from './args.js';

describe('bench arguments', () => {
  it('a full run measures 20k held keys over 5 interleaved rounds', () => {
    expect(parseBenchArgs([])).toMatchObject({ quick: false, rounds: 5, phaseMs: 3000, heldKeys: 20_000, heldSpreadMs: 30_000, check: false });
  });

  it('--quick is short and never asserts timings, even with --check', () => {
    const c = parseBenchArgs(['--quick', '--check']);
    expect(c).toMatchObject({ quick: true, rounds: 1, phaseMs: 1000, heldKeys: 2_000, heldSpreadMs: 3_000, check: false });
  });

  it('explicit values override the mode, and --only takes a list', () => {
    expect(parseBenchArgs(['--quick', '--rounds', '2', '--seconds', '0.5', '--only', 'raw-txn, provider'])).toMatchObject({
      rounds: 2,
      phaseMs: 500,
      only: ['raw-txn', 'provider'],
    });
  });

  it('holds five configurations (1k and 10k leases at TTL 15 s and 3 s, 2000 at 3 s) in a full run, a small one in a smoke run, none when asked', () => {
    expect(parseBenchArgs([]).holds).toEqual([
      { keys: 1000, ttlMs: 15_000 },
      { keys: 10_000, ttlMs: 15_000 },
      { keys: 1000, ttlMs: 3000 },
      { keys: 2000, ttlMs: 3000 },
      { keys: 10_000, ttlMs: 3000 },
    ]);
    expect(parseBenchArgs(['--quick']).holds).toEqual([{ keys: 200, ttlMs: 3000 }]);
    expect(parseBenchArgs(['--hold', 'none']).holds).toEqual([]);
    expect(() => parseBenchArgs(['--hold', '10x3'])).toThrow(/LEASES@TTL/);
  });

  it('rejects nonsense instead of running a zero-length benchmark', () => {
    expect(() => parseBenchArgs(['--rounds', '0'])).toThrow(/--rounds/);
    expect(() => parseBenchArgs(['--rounds', '1.5'])).toThrow(/whole number/);
    expect(() => parseBenchArgs(['--seconds', 'abc'])).toThrow(/--seconds/);
    expect(() => parseBenchArgs(['--bogus'])).toThrow();
    expect(parseBenchArgs(['--held-spread', '0']).heldSpreadMs).toBe(0);
    expect(() => parseBenchArgs(['--held-spread=-1'])).toThrow(/non-negative/);
  });
});
