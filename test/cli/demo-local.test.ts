import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliProcess, cleanEnv, runCli } from './support/cli-process.js';
import { summaryFigures } from './support/demo-summary.js';

const dir = mkdtempSync(join(tmpdir(), 'etcd-lease-demo-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('etcd-lease demo on its own local cluster (shortened)', () => {
  it('survives a killed leader and a paused member with 0 overlaps, and writes an SVG report', async () => {
    const report = join(dir, 'report.html');

    // No ETCD_* variables: the demo must start its own cluster.
    const demo = new CliProcess(['demo', '--duration', '15', '--report', report], cleanEnv());
    const killer = setTimeout(() => demo.signal('SIGKILL'), 55_000);
    // The command it prints lists its keys while it runs: as a clone runs the CLI, in lines that fit 80 columns.
    const listCommand = /^ {2}npm run cli -- list --prefix (\S+) \\\n {4}--endpoints (\S+)$/m;
    await demo.until('the list command and the first status', (p) => listCommand.test(p.stdout) && p.stdout.includes('keys held'), 40_000);
    const listArgs = listCommand.exec(demo.stdout)!;
    const preStart = demo.stdout.slice(0, demo.stdout.indexOf('starting 4 worker processes'));
    for (const line of preStart.split('\n')) expect(line.length, line).toBeLessThanOrEqual(79);
    expect(preStart).not.toMatch(/(^|\s)etcd-lease list/m);
    const listed = await runCli(['list', '--json', '--prefix', listArgs[1]!, '--endpoints', listArgs[2]!]);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ key: string }>).map((l) => l.key)).toContainEqual(expect.stringMatching(/^demo-user\u0000thread-\d+$/));
    const result = await demo.exited;
    clearTimeout(killer);

    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const last = lines.at(-1) ?? '';
    const { ops, faults, overlaps } = summaryFigures(last);
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
    // Viewable offline: nothing is fetched from anywhere (the one link is to the package's own design document).
    expect(html).not.toMatch(/\bsrc=|<link\b/);
    expect([...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1])).toEqual([expect.stringMatching(/^file:\/\/.*\/docs\/design\.md#belief-windows$/)]);
    expect(html).toMatch(/etcd 3\.\d+\.\d+/);
  }, 60_000);
});
