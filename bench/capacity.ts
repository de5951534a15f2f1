/**
 * How many leases one 3-member cluster holds here, and what holding them costs this process. Opt-in (minutes long,
 * not part of `npm run bench`); run it under the cluster lock like every benchmark:
 *
 *   npm run bench:capacity -- [--steps 10000,15000,20000,30000,50000,70000,100000] [--ttl 15] [--p99-limit-ms 1000]
 *                             [--resolution 0.05] [--overload 1.5] [--overload-seconds 30] [--check] [--profile DIR]
 *                             [--ceiling 100000]
 *   npm run bench:capacity -- --hold-minutes 10 [--keys 10000]
 *
 * Steps: for each count, a fresh provider takes that many keys and renews each every TTL/3 on its own timer (as
 * Mastra does); over one steady window it reports renewals/s, renew p50/p99, committed proposals/s, members' and
 * client CPU, and this process's RSS (after a full GC) while the keys are held. It stops after the first step
 * whose renew p99 passes the limit or that had failed renewals, then bisects between that step and the one before
 * until they are within `--resolution` of each other: the highest count that held is the capacity at that TTL,
 * printed on its own line. `--overload F` (0 to skip) then holds F × the capacity for `--overload-seconds` and says
 * how the provider degraded: the share of keys held throughout, renewals by result (answered, shed with
 * ELEASE_OVERLOADED, out of time), the slowest call against its deadline, and RSS. Then PASS/FAIL against the
 * capacity target (bench/targets.ts: 100 000 leases at TTL 15 s, renew p99 < 1 s, none failed, ≤ 10 committed
 * proposals/s per 1000 leases); `--check` exits 2 when it fails. `--profile DIR` records a CPU profile of this process
 * over each step's window (DIR/capacity-<leases>.cpuprofile) and prints where it went per renewal.
 *
 * `--ceiling N,…` (default the target's 100 000; 0 to skip) then holds N keys with perfect batches of the provider's
 * renew transaction and nothing else (hold-cost/perfect-renewals.ts) on the same cluster: what the members carry at
 * that count with no provider in the way. Its rows are printed beside the steps, and a line says whether the cluster
 * alone held it — a count the ceiling cannot hold is past this machine for any design that writes per renewal.
 *
 * --hold-minutes: holds `--keys` keys that long and samples RSS and JS heap (after GC) every 30 s: a leak shows
 * as growth that goes on after the first minutes.
 */
import { parseArgs } from 'node:util';
import { Etcd3 } from 'etcd3';
import type { Redis } from 'ioredis';
import { startCluster } from '../launcher/cluster.js';
import { ClusterMeter } from './cluster-meter.js';
import { providerHold } from './hold-cost/designs.js';
import { formatHoldTable } from './hold-cost/hold-table.js';
import { measureHold, type HoldResult } from './hold-cost/measure-hold.js';
import { formatOverload, measureOverload } from './hold-cost/overload-hold.js';
import { perfectRenewHold } from './hold-cost/perfect-renewals.js';
import { sampleMemory } from './memory.js';
import { profiledWindow } from './profile/profiled-window.js';
import { formatChecks } from './report.js';
import { EtcdReset, revokeAllLeases } from './reset.js';
import { checkCapacity } from './targets.js';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '10000,15000,20000,30000,50000,70000,100000' },
    ttl: { type: 'string', default: '15' },
    'p99-limit-ms': { type: 'string', default: '1000' },
    resolution: { type: 'string', default: '0.05' },
    overload: { type: 'string', default: '1.5' },
    'overload-seconds': { type: 'string', default: '30' },
    'hold-minutes': { type: 'string' },
    keys: { type: 'string', default: '10000' },
    check: { type: 'boolean', default: false },
    profile: { type: 'string' },
    ceiling: { type: 'string', default: '100000' },
  },
});
const ttlMs = Number(values.ttl) * 1000;
const startedAt = Date.now();
const log = (m: string) => console.log(`[capacity ${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${m}`);
const mb = (bytes: number) => `${bytes.toFixed(0)} MB`;

const cluster = await startCluster({ size: 3, label: 'etcd-lease-capacity', faultProxies: false, signals: 'caller' });
const hosts = cluster.endpoints();
const etcd = new Etcd3({ hosts });
const clients = { etcd, hosts, redis: undefined as unknown as Redis }; // the provider design needs no Redis
const meter = new ClusterMeter(hosts);
const reset = new EtcdReset(etcd);
let exitCode = 0;
try {
  if (values['hold-minutes'] !== undefined) await longHold(Number(values['hold-minutes']), Number(values.keys));
  else await steps(values.steps.split(',').map(Number), Number(values['p99-limit-ms']));
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  etcd.close();
  await cluster.stop();
}
process.exit(exitCode);

async function steps(counts: number[], p99LimitMs: number): Promise<void> {
  const base = sampleMemory('before');
  const results: HoldResult[] = [];
  const rss: Array<{ keys: number; rssMb: number; heapMb: number }> = [];
  const holds = (r: HoldResult) => r.error === undefined && r.failures === 0 && r.renewP99Ms <= p99LimitMs;
  const step = async (keys: number): Promise<HoldResult> => {
    log(`holding ${keys} leases at TTL ${ttlMs / 1000} s…`);
    const r = await measureHold(providerHold, { keys, ttlMs }, clients, meter, reset, `cap-${keys}`, {
      windowMs: Math.max(10_000, (2 * ttlMs) / 3),
      ...(values.profile === undefined ? {} : { window: profiledWindow(values.profile, `capacity-${keys}`, 'renewal') }),
      whileHeld: () => {
        const m = sampleMemory(`${keys} held`);
        rss.push({ keys, rssMb: m.rssMb - base.rssMb, heapMb: m.heapUsedMb - base.heapUsedMb });
      },
    });
    results.push(r);
    log(r.error ? `could not hold: ${r.error}` : `${measured(r)}${firstFailure(r)}, took ${r.setupS.toFixed(0)} s to acquire`);
    return r;
  };
  let held: number | undefined;
  let failed: number | undefined;
  for (const keys of counts) {
    if (!holds(await step(keys))) {
      failed = keys;
      break;
    }
    held = keys;
  }
  // Between the last count that held and the first that did not: halve the gap until it is within the resolution.
  const resolution = Number(values.resolution);
  while (held !== undefined && failed !== undefined && failed - held > Math.max(100, resolution * held)) {
    const mid = Math.round((held + failed) / 2 / 100) * 100;
    if (holds(await step(mid))) held = mid;
    else failed = mid;
  }
  // After the steps, so that what 100 000 keys leave in the members (a larger db, compactions) weighs on no step.
  const ceiling: HoldResult[] = [];
  for (const keys of values.ceiling.split(',').map(Number).filter((n) => n > 0)) {
    log(`the ceiling: holding ${keys} leases at TTL ${ttlMs / 1000} s with perfect renewal batches, no provider…`);
    const r = await measureHold(perfectRenewHold, { keys, ttlMs }, clients, meter, reset, `ceiling-${keys}`, { windowMs: Math.max(10_000, (2 * ttlMs) / 3) });
    log(r.error ? `could not hold: ${r.error}` : `${measured(r)}${firstFailure(r)}`);
    ceiling.push(r);
  }
  console.log('');
  console.log(formatHoldTable([...ceiling, ...[...results].sort((a, b) => a.keys - b.keys)]));
  console.log('');
  for (const r of ceiling) {
    const due = (r.keys * 3000) / ttlMs;
    console.log(
      `the ceiling at ${r.keys} leases (${due.toFixed(0)} renewals/s due, perfect batches, no provider): ` +
        (holds(r) ? 'held' : `did not hold (${r.error ?? measured(r)})`) +
        (r.memberCores === undefined ? '' : `; members ${(r.memberCores * 100).toFixed(0)} % of a core, this process ${(r.clientCores * 100).toFixed(0)} %`),
    );
  }
  for (const m of rss) console.log(`${m.keys} leases held: RSS +${mb(m.rssMb)} over the process before the provider (JS heap +${mb(m.heapMb)}), ${((m.rssMb / m.keys) * 10_000).toFixed(0)} MB per 10k`);
  console.log(
    held === undefined
      ? 'even the first step did not hold'
      : `capacity at TTL ${ttlMs / 1000} s (renew p99 ≤ ${p99LimitMs} ms, no renewal failed): ${held} leases, ${((held * 3000) / ttlMs).toFixed(0)} renewals/s` +
          (failed === undefined ? ' (every step held; the machine limit lies beyond)' : `; ${failed} did not hold`),
  );
  const checks = checkCapacity(results);
  console.log('');
  console.log(formatChecks(checks, true));
  if (values.check && checks.some((c) => c.verdict === 'FAIL')) exitCode = 2;
  const factor = Number(values.overload);
  if (held === undefined || !(factor > 0)) return;
  // Every step held: the highest is no capacity, and a multiple of it need not be past one.
  if (failed === undefined) return log('no overload step: no step failed, so no capacity was found (add higher --steps)');
  const keys = Math.round(factor * held);
  log(`holding ${keys} leases (${factor}× capacity) for ${values['overload-seconds']} s…`);
  const r = await measureOverload(hosts, keys, ttlMs, Number(values['overload-seconds']) * 1000, `over-${keys}`);
  await revokeAllLeases(etcd);
  await reset.run();
  console.log(formatOverload(r, held));
}

/** What a hold's window measured, in one phrase. */
function measured(r: HoldResult): string {
  return `${r.renewsPerSecond.toFixed(0)} renews/s, p99 ${r.renewP99Ms.toFixed(0)} ms, ${r.failures} failed`;
}

function firstFailure(r: HoldResult): string {
  return r.firstFailure === undefined ? '' : ` (first: ${r.firstFailure})`;
}

async function longHold(minutes: number, keys: number): Promise<void> {
  log(`holding ${keys} leases at TTL ${ttlMs / 1000} s for ${minutes} min, sampling memory every 30 s`);
  const before = sampleMemory('before');
  const holding = await providerHold.hold(clients, keys, ttlMs, 'long');
  const samples: Array<{ minute: number; rssMb: number; heapMb: number; renews: number; failures: number }> = [];
  const endAt = Date.now() + minutes * 60_000;
  while (Date.now() < endAt) {
    await new Promise((r) => setTimeout(r, Math.min(30_000, endAt - Date.now())));
    const m = sampleMemory('held');
    const counts = holding.take();
    samples.push({ minute: (Date.now() - startedAt) / 60_000, rssMb: m.rssMb, heapMb: m.heapUsedMb, renews: counts.renews, failures: counts.failures });
    log(`RSS ${mb(m.rssMb)}, JS heap ${mb(m.heapUsedMb)}, ${counts.renews} renewals (${counts.failures} failed) in the last 30 s`);
  }
  await holding.stop();
  const first = samples[1] ?? samples[0]!; // the first 30 s include the acquires' garbage
  const last = samples.at(-1)!;
  const failures = samples.reduce((n, s) => n + s.failures, 0);
  console.log(
    `\n${keys} leases held ${minutes} min: RSS ${mb(before.rssMb)} before, ${mb(first.rssMb)} after 1 min, ${mb(last.rssMb)} at the end ` +
      `(${last.rssMb - first.rssMb >= 0 ? '+' : ''}${mb(last.rssMb - first.rssMb)}); JS heap ${mb(first.heapMb)} → ${mb(last.heapMb)}; ${failures} failed renewals`,
  );
  if (failures > 0) exitCode = 1;
}
