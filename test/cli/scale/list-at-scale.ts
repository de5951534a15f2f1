/**
 * Opt-in measurement of the CLI at scale: N leases (default 100 000) under one prefix on a throwaway
 * 3-member cluster (etcd from PATH or ETCD_BIN, no fault proxies), then the built CLI run as an operator runs it —
 * `etcd-lease list --json` and `etcd-lease stats` — with its wall time and peak RSS. Checks that every lease was
 * printed exactly once, and exits 1 if not, or if the list's peak RSS reached 200 MB.
 *
 *   npm run scale:cli                      # 100 000 leases
 *   npm run scale:cli -- --leases 50000
 *
 * (`npm run scale:cli` builds dist/ first.) Starts etcd members: on a shared machine, run it where nothing else
 * runs a cluster.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { Etcd3 } from 'etcd3';
import { startCluster } from '../../../launcher/cluster.js';
import { REPO_ROOT, cleanEnv } from '../support/cli-process.js';
import { peakRssProbe } from '../support/peak-rss.js';
import { seedLeases } from '../support/seed-leases.js';

const RSS_LIMIT_MB = 200;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
  peakMb: number;
}

/** The built CLI (dist/cli.js) with the peak-RSS probe, its output collected. */
async function runBuiltCli(args: string[]): Promise<Run> {
  const probe = peakRssProbe();
  const started = performance.now();
  try {
    const child = spawn(process.execPath, [...probe.nodeArgs, 'dist/cli.js', ...args], { cwd: REPO_ROOT, env: cleanEnv(probe.env) });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    return { code, stdout: Buffer.concat(out).toString('utf8'), stderr, seconds: (performance.now() - started) / 1000, peakMb: probe.read() };
  } finally {
    probe.dispose();
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { leases: { type: 'string', default: '100000' } } });
  const leases = Number(values.leases);
  if (!Number.isInteger(leases) || leases < 1) throw new Error(`--leases: a whole number above 0, got ${values.leases}`);

  const cluster = await startCluster({ size: 3, label: 'cli-scale' });
  const client = new Etcd3({ hosts: cluster.endpoints() });
  try {
    const prefix = 'scale/lease/';
    const seedStarted = performance.now();
    const seeded = await seedLeases(client, prefix, leases);
    console.log(`seeded ${leases} leases (125-character owners, NUL keys, metadata on 10%) in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
    const connection = ['--endpoints', cluster.endpoints().join(','), '--prefix', prefix];

    const list = await runBuiltCli(['list', '--json', ...connection]);
    const rows = list.code === 0 ? (JSON.parse(list.stdout) as Array<{ key: string }>) : [];
    const distinct = new Set(rows.map((r) => r.key));
    const complete = rows.length === leases && distinct.size === leases && seeded.keys.every((k) => distinct.has(k));
    console.log(`list --json: exit ${list.code}, ${rows.length} leases printed (${distinct.size} distinct, all seeded: ${complete}), ${list.seconds.toFixed(1)} s, peak RSS ${list.peakMb.toFixed(0)} MB`);

    const stats = await runBuiltCli(['stats', '--json', ...connection]);
    const counted = stats.code === 0 ? (JSON.parse(stats.stdout) as { leases: number }).leases : undefined;
    console.log(`stats:       exit ${stats.code}, ${counted} leases counted, ${stats.seconds.toFixed(1)} s, peak RSS ${stats.peakMb.toFixed(0)} MB`);

    if (list.code !== 0 || stats.code !== 0) console.error(list.stderr || stats.stderr);
    const ok = list.code === 0 && complete && list.peakMb < RSS_LIMIT_MB && counted === leases;
    console.log(ok ? 'OK' : `FAILED (want exit 0, every lease once, peak RSS < ${RSS_LIMIT_MB} MB)`);
    return ok ? 0 : 1;
  } finally {
    client.close();
    await cluster.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
