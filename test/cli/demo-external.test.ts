import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { cleanEnv, runCli } from './support/cli-process.js';
import { summaryFigures } from './support/demo-summary.js';

const etcd = useEtcdCluster();
const dir = mkdtempSync(join(tmpdir(), 'etcd-lease-demo-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('etcd-lease demo against an existing cluster (ETCD_ENDPOINTS)', () => {
  it('kills nothing, finds 0 overlaps, and leaves no key behind under its prefix', async () => {
    const base = etcd.uniquePrefix();
    const report = join(dir, 'report.html');

    const result = await runCli(
      ['demo', '--duration', '5', '--workers', '3', '--prefix', base, '--report', report],
      cleanEnv({ ETCD_ENDPOINTS: etcd.cluster.endpoints().join(',') }),
      40_000,
    );

    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const last = result.stdout.trimEnd().split('\n').at(-1) ?? '';
    const { ops, faults, overlaps } = summaryFigures(last);
    expect(ops).toBeGreaterThan(0);
    expect({ faults, overlaps }).toEqual({ faults: 0, overlaps: 0 });
    expect(result.stdout).not.toContain('starting a local');
    expect(result.stdout).toContain('cleaned up');
    // Every member is still up: the demo must never touch a cluster it did not start.
    await etcd.cluster.waitHealthy(5000);
    const left = await etcd.rawClient().getAll().prefix(base).keys();
    expect(left).toEqual([]);
    expect(readFileSync(report, 'utf8')).toContain('<svg');
  }, 45_000);
});
