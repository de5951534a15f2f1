import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from './support/cli-process.js';

// The format the issue fixes; written out here rather than imported, so a change to it fails a test.
const SUMMARY = /^summary: (\d+) ops, (\d+) faults, (\d+) overlaps, longest stall (\d+(?:\.\d+)?) s$/;

const dir = mkdtempSync(join(tmpdir(), 'etcd-lease-demo-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('etcd-lease demo on its own local cluster (shortened)', () => {
  it('survives a killed leader and a paused member with 0 overlaps, and writes an SVG report', async () => {
    const report = join(dir, 'report.html');

    // No ETCD_* variables: the demo must start its own cluster.
    const result = await runCli(['demo', '--duration', '15', '--report', report], cleanEnv(), 55_000);

    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const last = lines.at(-1) ?? '';
    const match = SUMMARY.exec(last);
    expect(match, `last line: ${JSON.stringify(last)}`).not.toBeNull();
    const [, ops, faults, overlaps] = match!.map(Number);
    expect(overlaps).toBe(0);
    expect(faults).toBe(2); // the leader killed, a member paused
    expect(ops).toBeGreaterThan(20);
    expect(result.stdout).toContain('killed leader');
    expect(result.stdout).toContain('paused leader');
    expect(result.stdout).toContain(`report: ${report}`);

    expect(existsSync(report)).toBe(true);
    const html = readFileSync(report, 'utf8');
    expect(html).toContain('<svg');
    expect(html).toContain(last);
    // Viewable offline: nothing is fetched from anywhere.
    expect(html).not.toMatch(/\b(src|href)=/);
  }, 60_000);
});
