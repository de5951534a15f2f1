/**
 * Side-by-side benchmark of this provider against raw etcd transactions, the lease-per-key design,
 * etcd3's Lock and Redis `SET NX PX`, all in one process against one 3-member etcd cluster and one
 * redis-server that this script starts on free loopback ports and always stops.
 *
 *   node --expose-gc --import tsx bench/run.ts [--quick] [--json out.json] [--rounds N] [--seconds S] [--only id,…] [--check]
 *                                              [--profile DIR]  (a CPU profile of every timed run, bench/profile/)
 *
 * Exit code: 0 when every operation succeeded; 1 on any error (including an unexpected result, e.g.
 * a fresh key not acquired); 2 with --check when a target fails. --quick never asserts timings.
 */
import { Etcd3 } from 'etcd3';
import { Redis } from 'ioredis';
import { EtcdLeaseProvider, loadBaseline } from './provider-under-test.js';
import { parseBenchArgs, type BenchConfig } from './args.js';
import { assemble } from './assemble.js';
import { measureHeldLeases, type HeldLeasesResult } from './held-leases.js';
import { startCluster } from '../launcher/cluster.js';
import { startBenchRedis } from './infra/redis-server.js';
import { sampleMemory, type MemorySample } from './memory.js';
import { printReport, writeJson } from './output.js';
import { ProviderProbe } from './probe.js';
import { ClusterMeter } from './cluster-meter.js';
import { HOLD_DESIGNS } from './hold-cost/designs.js';
import { holdWindowMs, runHolds, type HoldRun } from './hold-cost/run-holds.js';
import { EtcdReset } from './reset.js';
import { runRounds } from './rounds.js';
import { allScenarios } from './scenarios/index.js';
import { BENCH_PREFIX } from './scenarios/scenario.js';

/** Per-call deadline of the baseline clients, so a hung member cannot stall a phase forever. */
const CALL_DEADLINE_MS = 5_000;
/** Most time one hold-cost design may take to take its keys and give them back (10k etcd3 Locks are slow). */
const HOLD_SETUP_LIMIT_MS = 120_000;
/** Callers acquiring the held keys, and the most time that phase may take beyond its arrival spread. */
const HELD_CALLERS = 256;
const HELD_TIME_LIMIT_MS = 120_000;

const startedAt = Date.now();
const cleanups: Array<() => Promise<void>> = [];

let cleaning: Promise<void> | undefined;

/**
 * Stops what was started, newest first (clients before the servers they talk to); never throws.
 * One shared run: a signal handler and the main path that fails because of it both wait for the
 * same cleanup instead of the second exiting while the first is still stopping etcd.
 */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of cleanups.splice(0).reverse()) {
      await fn().catch((error) => console.error(`cleanup: ${String(error)}`));
    }
  })();
  return cleaning;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping etcd and redis`);
    void cleanUp().finally(() => process.exit(130));
  });
}

function log(message: string): void {
  console.log(`[bench ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(5)} s] ${message}`);
}

async function main(config: BenchConfig): Promise<number> {
  const Baseline = await loadBaseline();
  const scenarios = allScenarios(Baseline !== undefined).filter((s) => config.only.length === 0 || config.only.some((o) => s.id.includes(o)));
  const wantHeld = config.only.length === 0 || config.only.some((o) => 'held-leases'.includes(o));
  const holds = config.only.length === 0 || config.only.some((o) => 'hold-cost'.includes(o)) ? config.holds : [];
  if (scenarios.length === 0 && !wantHeld && holds.length === 0) throw new Error(`--only ${config.only.join(',')} matches no scenario`);

  // The whole run is bounded in time: a wedged run reports and cleans up instead of hanging CI.
  const holdBudgetMs = holds.reduce((ms, h) => ms + HOLD_DESIGNS.length * (h.ttlMs / 3 + holdWindowMs(h.ttlMs) + HOLD_SETUP_LIMIT_MS), 0);
  const budgetMs = 2 * scenarios.length * (config.rounds * config.phaseMs + config.warmupMs) + 2 * HELD_TIME_LIMIT_MS + config.heldSpreadMs + holdBudgetMs + 120_000;
  const watchdog = setTimeout(() => {
    console.error(`benchmark exceeded its ${Math.round(budgetMs / 1000)} s budget; stopping`);
    void cleanUp().finally(() => process.exit(1));
  }, budgetMs);
  watchdog.unref();

  log('starting a 3-member etcd cluster and redis-server on loopback…');
  // The shared launcher, without fault proxies: nothing but etcd in the measured path. Its members run in
  // their own process group, so a Ctrl-C reaches this script, whose cleanup stops them.
  const cluster = await startCluster({ size: 3, label: 'etcd-lease-bench', faultProxies: false, signals: 'caller' });
  cleanups.push(() => cluster.stop());
  const redisServer = await startBenchRedis();
  cleanups.push(() => redisServer.stop());
  const hosts = cluster.endpoints();

  const etcd = new Etcd3({
    hosts,
    defaultCallOptions: () => ({ deadline: new Date(Date.now() + CALL_DEADLINE_MS) }),
  });
  cleanups.push(async () => etcd.close());
  // The references sent to the leader alone: found once; nothing here moves leadership during a run.
  const leader = new Etcd3({ hosts: [cluster.endpoint(await cluster.leader())], defaultCallOptions: () => ({ deadline: new Date(Date.now() + CALL_DEADLINE_MS) }) });
  cleanups.push(async () => leader.close());
  const redis = new Redis({ host: '127.0.0.1', port: redisServer.port, commandTimeout: CALL_DEADLINE_MS, maxRetriesPerRequest: 1 });
  cleanups.push(async () => redis.disconnect());
  await redis.ping();

  const memory: MemorySample[] = [sampleMemory('before provider')];
  // One long-lived provider for every provider scenario, as in a Mastra process.
  const provider = new EtcdLeaseProvider({ hosts, prefix: `${BENCH_PREFIX}provider/` });
  cleanups.push(() => provider.close());
  const baseline = Baseline && new Baseline({ hosts, prefix: `${BENCH_PREFIX}baseline/` });
  if (baseline) cleanups.push(() => baseline.close());
  const probe = new ProviderProbe(provider);
  if (!probe.available) log('probe unavailable (provider internals renamed?): batch sizes and grants will not be reported');

  const results = await runRounds(scenarios, {
    rounds: config.rounds,
    phaseMs: config.phaseMs,
    warmupMs: config.warmupMs,
    clients: baseline ? { etcd, leader, redis, provider, baseline } : { etcd, leader, redis, provider },
    probe,
    memory,
    log,
    profileDir: config.profileDir,
  });

  const held: HeldLeasesResult[] = [];
  if (wantHeld) {
    for (const spreadMs of config.heldSpreadMs > 0 ? [0, config.heldSpreadMs] : [0]) {
      const how = spreadMs > 0 ? `arriving over ${spreadMs / 1000} s` : 'in one burst';
      log(`holding ${config.heldKeys} keys with one TTL, ${how}, through a fresh provider…`);
      const h = await measureHeldLeases(etcd, hosts, { keys: config.heldKeys, callers: HELD_CALLERS, spreadMs, timeLimitMs: spreadMs + HELD_TIME_LIMIT_MS });
      memory.push(sampleMemory(`after held-leases (${h.arrival})`));
      log(`held ${h.keysHeld} keys on ${h.leasesCarryingKeys} etcd leases; ${h.liveLeases} live leases in the cluster`);
      held.push(h);
    }
  }

  let holdRun: HoldRun | undefined;
  let holdFailed = false;
  if (holds.length > 0) {
    log(`hold cost: ${holds.map((h) => `${h.keys} leases at TTL ${h.ttlMs / 1000} s`).join(', ')}; each renewed every TTL/3 on its own timer`);
    // Its own client without the baselines' per-call deadline: etcd3 applies that deadline to streams too, and would
    // end every keep-alive stream after 5 s (then open its circuit breaker on the failures).
    const holdEtcd = new Etcd3({ hosts });
    cleanups.push(async () => holdEtcd.close());
    try {
      // A smoke run only shows that every design holds and is metered: half the window.
      holdRun = await runHolds(HOLD_DESIGNS, holds, { etcd: holdEtcd, hosts, redis }, new ClusterMeter(hosts), new EtcdReset(holdEtcd), log, config.quick ? 0.5 : 1);
    } catch (error) {
      // The throughput results above still get reported; the failure counts as an error of the run.
      log(`hold cost failed: ${error instanceof Error ? error.message : String(error)}`);
      holdFailed = true;
    }
  }

  const assembled = assemble(results, held, holdRun?.results);
  const out = { startedAt, config, quick: config.quick, results, assembled, held, memory, holdRun };
  printReport(out);
  // Failed renewals in the hold-cost table are a measured limit (10,000 renewals/s is past what two cores carry for
  // any etcd design), shown in its `failed` column, not an error of the run; a hold phase that broke down is one.
  const errors = [...assembled.summaries.values(), ...held.map((h) => h.load)].reduce((n, s) => n + s.errors, 0) + (holdFailed ? 1 : 0);
  const missing = held.reduce((n, h) => n + h.keys - h.keysHeld, 0);
  console.log(`\nresults written to ${writeJson(out, config.jsonPath, errors)}`);

  if (errors > 0 || missing > 0) {
    console.error(`FAILED: ${errors} operations failed${missing > 0 ? `, ${missing} held keys missing` : ''}`);
    return 1;
  }
  if (config.check && assembled.checks.some((c) => c.verdict === 'FAIL')) return 2;
  return 0;
}

let exitCode = 1;
try {
  exitCode = await main(parseBenchArgs(process.argv.slice(2)));
} catch (error) {
  // After a signal, the failure is the interruption itself (clients closed under the run): no stack.
  if (!interrupted) console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await cleanUp();
}
// Explicit exit: a stray keep-alive stream or timer in a client must not keep CI waiting.
process.exit(interrupted ? 130 : exitCode);
