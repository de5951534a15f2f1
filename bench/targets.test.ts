import { describe, expect, it } from 'vitest';
import { checkTargets } from './targets.js';

const passing = {
  rawTxnP50Ms: 1.5,
  acquireP50Ms: 1.6,
  acquire64: { opsPerSecond: 19_000, cpuUsPerOp: 20 },
  perfect64: { opsPerSecond: 20_000, cpuUsPerOp: 16 },
  acquire256: { opsPerSecond: 19_000, cpuUsPerOp: 20 },
  perfect256: { opsPerSecond: 20_000, cpuUsPerOp: 16 },
  heldLeases: [
    { arrival: 'burst', keys: 20_000, liveLeases: 3 },
    { arrival: 'spread', keys: 20_000, liveLeases: 31 },
  ],
  hold1000Ttl15: { keys: 1000, proposalsPerSecond: 8, renewsPerSecond: 200 },
  hold2000Ttl3: { keys: 2000, proposalsPerSecond: 40, renewsPerSecond: 2000 },
};

const verdicts = (f: Parameters<typeof checkTargets>[0]) => checkTargets(f).map((c) => c.verdict);

describe('benchmark targets', () => {
  it('pass when every figure is within its bound', () => {
    expect(verdicts(passing)).toEqual(Array(8).fill('PASS'));
  });

  it('acquire p50 fails just past 1.1× the raw Txn', () => {
    expect(verdicts({ ...passing, acquireP50Ms: 1.5 * 1.1 })[0]).toBe('PASS');
    expect(verdicts({ ...passing, acquireP50Ms: 1.5 * 1.11 })[0]).toBe('FAIL');
  });

  it('throughput must reach 0.9× the perfect batch with the same keys in flight, at 64 and at 256', () => {
    expect(verdicts({ ...passing, acquire64: { opsPerSecond: 17_900, cpuUsPerOp: 20 } }).slice(1, 3)).toEqual(['FAIL', 'PASS']);
    expect(verdicts({ ...passing, acquire256: { opsPerSecond: 18_000, cpuUsPerOp: 20 } }).slice(1, 3)).toEqual(['PASS', 'PASS']);
  });

  it('client CPU per acquire must stay within 1.4× the perfect path per key', () => {
    expect(verdicts({ ...passing, acquire256: { opsPerSecond: 19_000, cpuUsPerOp: 22.5 } })[4]).toBe('FAIL');
    expect(checkTargets(passing)[3]!.detail).toBe('1.25× (target ≤ 1.4×)');
  });

  it('more than 50 live leases in any arrival pattern fails', () => {
    const held = (spread: number) => [
      { arrival: 'burst', keys: 20_000, liveLeases: 3 },
      { arrival: 'spread', keys: 20_000, liveLeases: spread },
    ];
    expect(verdicts({ ...passing, heldLeases: held(50) })[5]).toBe('PASS');
    expect(verdicts({ ...passing, heldLeases: held(51) })[5]).toBe('FAIL');
  });

  it('hold cost: proposals per 1000 leases at TTL 15 s, per renewal at TTL 3 s', () => {
    expect(verdicts({ ...passing, hold1000Ttl15: { keys: 1000, proposalsPerSecond: 10.1, renewsPerSecond: 200 } })[6]).toBe('FAIL');
    expect(verdicts({ ...passing, hold2000Ttl3: { keys: 2000, proposalsPerSecond: 101, renewsPerSecond: 2000 } })[7]).toBe('FAIL');
    expect(checkTargets(passing)[7]!.detail).toBe('0.020 per renew (target ≤ 0.05)');
  });

  it('a figure that was not measured is SKIP, never PASS', () => {
    expect(verdicts({})).toEqual(Array(8).fill('SKIP'));
    expect(verdicts({ ...passing, rawTxnP50Ms: 0 })[0]).toBe('SKIP');
  });
});
