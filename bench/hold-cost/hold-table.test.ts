import { describe, expect, it } from 'vitest';
import { formatHoldTable } from './hold-table.js';
import type { HoldResult } from './measure-hold.js';

const row: HoldResult = {
  design: 'provider',
  label: 'this provider',
  onEtcd: true,
  keys: 1000,
  ttlMs: 15_000,
  windowS: 10,
  renewsPerSecond: 200,
  failures: 0,
  renewP50Ms: 120,
  renewP99Ms: 260,
  proposalsPerSecond: 8,
  memberCores: 0.05,
  clientCores: 0.02,
  setupS: 1,
};

describe('hold-cost table', () => {
  it('states proposals per 1000 leases and per renewal, and leaves etcd columns empty for Redis', () => {
    const text = formatHoldTable([row, { ...row, design: 'redis', label: 'Redis', onEtcd: false, proposalsPerSecond: undefined, memberCores: undefined }]);
    const [, , provider, redis] = text.split('\n').map((line) => line.split('|').map((c) => c.trim()));
    expect(provider!.slice(4, 10)).toEqual(['200', '8.0', '8.0', '0.040', '5 %', '2 %']);
    expect(redis!.slice(5, 9)).toEqual(['—', '—', '—', '—']);
  });

  it('says when a design could not hold the keys', () => {
    expect(formatHoldTable([{ ...row, error: 'too many streams' }])).toContain('could not hold: too many streams');
  });
});
