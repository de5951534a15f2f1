import { runLoad, type LoadResult } from './load.js';
import { sampleMemory, type MemorySample } from './memory.js';
import { addCounts, emptyCounts, type ProviderProbe, type ProbeCounts } from './probe.js';
import { profiledWindow } from './profile/profiled-window.js';
import { fmtMs, fmtRate } from './report.js';
import { EtcdReset } from './reset.js';
import { roundOrder } from './schedule.js';
import type { BenchClients, Scenario } from './scenarios/scenario.js';
import { perKey, summarize, type Measurement } from './stats.js';

/** Most operations one scenario may run in one round, whatever its speed: bounds memory. */
const MAX_OPS_PER_RUN = 2_000_000;

/** One scenario in one round, as written to the JSON. */
export interface RunRecord {
  round: number;
  ops: number;
  errors: number;
  elapsedMs: number;
  p50: number;
  p99: number;
  opsPerSecond: number;
  firstError?: string;
  probe?: ProbeCounts;
  /** This process's CPU (user + system) over the run, per operation (per key for batches), in µs. */
  cpuUsPerOp: number;
  /** Untimed clean-up after the run (delete + compact). */
  resetMs: number;
}

export interface ScenarioResult {
  scenario: Scenario;
  runs: RunRecord[];
  measurements: Measurement[];
  /** Provider scenarios only: what the provider sent, summed over rounds. */
  probe: ProbeCounts;
  /** This process's CPU over every timed run, in µs, and the operations (keys) it served. */
  cpuMicros: number;
  cpuOps: number;
}

export interface RoundsOptions {
  rounds: number;
  phaseMs: number;
  warmupMs: number;
  clients: BenchClients;
  probe: ProviderProbe;
  /** Provider-phase memory samples are appended here. */
  memory: MemorySample[];
  log: (message: string) => void;
  /** Record a CPU profile of each timed run into this directory. */
  profileDir?: string | undefined;
}

/**
 * Warm-up, then `rounds` rounds of every scenario, forward and backward in turn (schedule.ts). After each run,
 * outside the timed window: the scenario's own clean-up, then every benchmark key deleted and history
 * compacted, so each run starts from the same cluster state.
 */
export async function runRounds(scenarios: readonly Scenario[], options: RoundsOptions): Promise<Map<string, ScenarioResult>> {
  const { clients, probe, log } = options;
  const reset = new EtcdReset(clients.etcd);
  const results = new Map<string, ScenarioResult>(scenarios.map((s) => [s.id, { scenario: s, runs: [], measurements: [], probe: emptyCounts(), cpuMicros: 0, cpuOps: 0 }]));

  log(`warm-up: ${options.warmupMs} ms per scenario`);
  for (const s of scenarios) {
    const warm = await runOnce(s, `warm-${s.id}`, options.warmupMs, clients, reset);
    if (warm.load.errors > 0) throw new Error(`warm-up of ${s.id} failed: ${warm.load.firstError}`);
  }

  for (let round = 0; round < options.rounds; round++) {
    for (const s of roundOrder(scenarios, round)) {
      probe.take();
      const runId = `r${round}-${s.id}`;
      const profile = options.profileDir === undefined ? undefined : profiledWindow(options.profileDir, runId, 'key');
      const { load, resetMs, cpuMicros } = await runOnce(s, runId, options.phaseMs, clients, reset, profile);
      const counts = probe.take();
      const isProvider = s.family.startsWith('provider');
      if (isProvider) options.memory.push(sampleMemory(`after ${s.id} round ${round + 1}`));
      const sum = perKey(summarize(load), s.keysPerCall ?? 1);
      const result = results.get(s.id)!;
      result.measurements.push(load);
      result.cpuMicros += cpuMicros;
      result.cpuOps += sum.ops;
      const record: RunRecord = {
        round: round + 1,
        ops: sum.ops,
        errors: load.errors,
        elapsedMs: load.elapsedMs,
        p50: sum.p50,
        p99: sum.p99,
        opsPerSecond: sum.opsPerSecond,
        cpuUsPerOp: cpuMicros / Math.max(1, sum.ops),
        resetMs,
      };
      if (load.firstError) record.firstError = load.firstError;
      if (isProvider && probe.available) {
        record.probe = counts;
        result.probe = addCounts(result.probe, counts);
      }
      result.runs.push(record);
      log(progressLine(round, options.rounds, s, record));
    }
  }
  return results;
}

/**
 * One timed run. Client CPU is `process.cpuUsage()` over exactly the timed load: everything this process did for
 * it (the client's encoding and the provider's own work), and nothing of the untimed prepare, clean-up and reset.
 */
async function runOnce(
  s: Scenario,
  runId: string,
  durationMs: number,
  clients: BenchClients,
  reset: EtcdReset,
  profile?: { start(): Promise<void>; end(ops: number): Promise<void> },
): Promise<{ load: LoadResult; resetMs: number; cpuMicros: number }> {
  const prepared = await s.prepare(clients, runId);
  let load: LoadResult;
  let cpuMicros: number;
  try {
    await profile?.start();
    const cpuFrom = process.cpuUsage();
    load = await runLoad(prepared.op, { callers: s.callers, durationMs, maxOps: MAX_OPS_PER_RUN });
    const cpu = process.cpuUsage(cpuFrom);
    cpuMicros = cpu.user + cpu.system;
    await profile?.end(load.ops * (s.keysPerCall ?? 1));
  } finally {
    await prepared.cleanup?.();
  }
  const { ms } = await reset.run();
  return { load, resetMs: ms, cpuMicros };
}

function progressLine(round: number, rounds: number, s: Scenario, r: RunRecord): string {
  const p = r.probe;
  const batch = p ? `  batch ${(p.ops / Math.max(1, p.txns)).toFixed(1)}, grants ${p.grants}, waits on grant ${p.blockingLeaseLookups}` : '';
  const errors = r.errors ? `  ERRORS ${r.errors} (${r.firstError})` : '';
  return `round ${round + 1}/${rounds} ${s.id.padEnd(22)} ${fmtRate(r.opsPerSecond).padStart(7)} ops/s  p50 ${fmtMs(r.p50)} ms  p99 ${fmtMs(r.p99)} ms  CPU ${r.cpuUsPerOp.toFixed(1)} µs/op${errors}${batch}`;
}
