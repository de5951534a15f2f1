import { describe, expect, it } from 'vitest';
import { formatChecks, formatTable, fmtMs, vsPerfect, vsRaw } from './report.js';
import { LatencyHistogram } from './histogram.js';
import { summarize } from './stats.js';

function summary(p50: number, opsPerSecond: number) {
  const latency = new LatencyHistogram();
  latency.record(p50);
  return { ...summarize({ ops: 1, errors: 0, elapsedMs: 1, latency }), opsPerSecond };
}

describe('report', () => {
  it('compares a single caller by p50 and concurrent callers by throughput', () => {
    const raw = new Map([
      [1, summary(1.5, 600)],
      [64, summary(30, 2000)],
    ]);
    expect(vsRaw({ callers: 1, summary: summary(1.65, 500) }, raw)).toBe('1.10× p50');
    expect(vsRaw({ callers: 64, summary: summary(5, 24_000) }, raw)).toBe('12.00× ops/s');
    expect(vsRaw({ callers: 8, summary: summary(5, 24_000) }, raw)).toBe('');
  });

  it('prints a markdown table with one row per scenario', () => {
    const table = formatTable([{ label: 'raw Txn', callers: 1, callersLabel: '1', summary: summary(1.5, 600), vsRawTxn: '1.00× p50', cpuUsPerOp: 30, vsPerfect: '' }]);
    const lines = table.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\| operation .*\| CPU µs\/op \| vs raw Txn \| vs perfect minimal batch \| vs perfect provider-shape batch \|$/);
    expect(lines[1]).toMatch(/^\|-+\|-+:\|/);
    expect(lines[2]).toContain('| raw Txn ');
    expect(lines[2]).toContain('1.50');
  });

  it('compares a provider row with the perfect batch in keys/s and CPU per key', () => {
    expect(vsPerfect({ opsPerSecond: 18_000, cpuUsPerOp: 24 }, { opsPerSecond: 20_000, cpuUsPerOp: 16 })).toBe('0.90× keys/s, 1.50× CPU');
    expect(vsPerfect({ opsPerSecond: 1, cpuUsPerOp: 1 }, undefined)).toBe('');
  });

  it('formats milliseconds with precision that fits their size', () => {
    expect(fmtMs(0.0912)).toBe('0.091');
    expect(fmtMs(1.234)).toBe('1.23');
    expect(fmtMs(123.4)).toBe('123');
    expect(fmtMs(Number.NaN)).toBe('—');
  });

  it('marks smoke-run verdicts as not asserted', () => {
    const line = formatChecks([{ name: 'x', verdict: 'FAIL', detail: 'd' }], false);
    expect(line).toBe('FAIL x: d (smoke run: reported, not asserted)');
  });
});
