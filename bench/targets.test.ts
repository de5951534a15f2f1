import { describe, expect, it } from 'vitest';
import { checkTargets } from './targets.js';

const passing = {
  rawTxnP50Ms: 1.5,
  acquireP50Ms: 1.6,
  rawTxn64OpsPerSecond: 2_000,
  acquire64OpsPerSecond: 33_000,
  redis64OpsPerSecond: 100_000,
  heldLeases: [
    { arrival: 'burst', keys: 20_000, liveLeases: 3 },
    { arrival: 'spread', keys: 20_000, liveLeases: 31 },
  ],
};

const verdicts = (f: Parameters<typeof checkTargets>[0]) => checkTargets(f).map((c) => c.verdict);

describe('issue 4 targets', () => {
  it('pass when every ratio is within its bound', () => {
    expect(verdicts(passing)).toEqual(['PASS', 'PASS', 'PASS', 'PASS']);
  });

  it('acquire p50 fails just past 1.1× the raw Txn', () => {
    expect(verdicts({ ...passing, acquireP50Ms: 1.5 * 1.1 })[0]).toBe('PASS');
    expect(verdicts({ ...passing, acquireP50Ms: 1.5 * 1.11 })[0]).toBe('FAIL');
  });

  it('throughput must reach 10× raw Txns and 0.3× Redis', () => {
    expect(verdicts({ ...passing, acquire64OpsPerSecond: 19_999 })).toEqual(['PASS', 'FAIL', 'FAIL', 'PASS']);
    expect(verdicts({ ...passing, acquire64OpsPerSecond: 25_000 })).toEqual(['PASS', 'PASS', 'FAIL', 'PASS']);
  });

  it('more than 50 live leases in any arrival pattern fails', () => {
    const held = (spread: number) => [
      { arrival: 'burst', keys: 20_000, liveLeases: 3 },
      { arrival: 'spread', keys: 20_000, liveLeases: spread },
    ];
    expect(verdicts({ ...passing, heldLeases: held(50) })[3]).toBe('PASS');
    expect(verdicts({ ...passing, heldLeases: held(51) })[3]).toBe('FAIL');
    expect(checkTargets({ heldLeases: held(61) })[3]!.detail).toBe('3 live leases for 20000 keys (burst); 61 live leases for 20000 keys (spread)');
  });

  it('a figure that was not measured is SKIP, never PASS', () => {
    expect(verdicts({})).toEqual(['SKIP', 'SKIP', 'SKIP', 'SKIP']);
    expect(verdicts({ ...passing, rawTxnP50Ms: 0 })[0]).toBe('SKIP');
  });

  it('states the measured ratio against its bound', () => {
    expect(checkTargets(passing)[1]!.detail).toBe('16.50× (target ≥ 10×)');
  });
});
