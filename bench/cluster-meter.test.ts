import { describe, expect, it } from 'vitest';
import { meterDelta, metricValue, procCpuMs } from './cluster-meter.js';

describe('cluster meter', () => {
  it('reads an unlabelled metric, not one whose name merely starts the same', () => {
    const page = [
      '# TYPE etcd_server_proposals_committed_total gauge',
      'etcd_server_proposals_committed_total_extra 5',
      'etcd_server_proposals_committed_total 1234',
    ].join('\n');
    expect(metricValue(page, 'etcd_server_proposals_committed_total')).toBe(1234);
    expect(metricValue(page, 'absent')).toBeUndefined();
  });

  it('reads utime + stime from a stat line whose command name has spaces', () => {
    const stat = '4242 (etcd m 0) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0';
    expect(procCpuMs(stat)).toBe(3000);
  });

  it('turns two readings into rates', () => {
    const d = meterDelta({ atMs: 0, proposals: 100, memberCpuMs: 1000 }, { atMs: 2000, proposals: 140, memberCpuMs: 2000 });
    expect(d).toEqual({ seconds: 2, proposalsPerSecond: 20, memberCores: 0.5 });
  });
});
