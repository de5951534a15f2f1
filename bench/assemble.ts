import type { HeldLeasesResult } from './held-leases.js';
import type { HoldResult } from './hold-cost/measure-hold.js';
import { vsPerfect, vsRaw, type TableRow } from './report.js';
import type { ScenarioResult } from './rounds.js';
import { combine, medianRatio, perKey, summarize, type Summary } from './stats.js';
import { checkTargets, type HoldFigure, type TargetCheck, type Throughput } from './targets.js';

export interface Assembled {
  summaries: Map<string, Summary>;
  /** This process's CPU per operation (per key for batches) over all rounds of each scenario, µs. */
  cpuUsPerOp: Map<string, number>;
  rows: TableRow[];
  checks: TargetCheck[];
  /**
   * The target ratios computed round by round (each round's pair ran seconds apart), and their
   * median: if the pooled ratio and the per-round median disagree, a noisy round moved the pooled one.
   */
  pairedRatios: Record<string, { perRound: number[]; median: number }>;
}

/** The provider's row in the hold-cost results for one configuration, if it was measured and held. */
function providerHold(holds: readonly HoldResult[], keys: number, ttlMs: number): HoldFigure | undefined {
  const r = holds.find((h) => h.design === 'provider' && h.keys === keys && h.ttlMs === ttlMs && h.error === undefined);
  return r?.proposalsPerSecond === undefined ? undefined : { keys, proposalsPerSecond: r.proposalsPerSecond, renewsPerSecond: r.renewsPerSecond };
}

/** Turns the raw results of a run into the table, the target checks and the paired ratios. */
export function assemble(results: ReadonlyMap<string, ScenarioResult>, held: readonly HeldLeasesResult[], holds: readonly HoldResult[] = []): Assembled {
  const summaries = new Map<string, Summary>(
    [...results].map(([id, r]) => [id, perKey(summarize(combine(r.measurements)), r.scenario.keysPerCall ?? 1)]),
  );
  const cpuUsPerOp = new Map<string, number>([...results].map(([id, r]) => [id, r.cpuMicros / Math.max(1, r.cpuOps)]));
  const throughput = (id: string): Throughput | undefined => {
    const s = summaries.get(id);
    return s && { opsPerSecond: s.opsPerSecond, cpuUsPerOp: cpuUsPerOp.get(id)! };
  };

  // Each row is compared with the raw Txn at its concurrency; 256 callers with the raw Txn at 64,
  // (a raw Txn does not get faster beyond 64 callers).
  const rawRef = new Map<number, Summary>();
  // ...and provider rows with the perfect batches that have as many keys in flight: of the minimal acquire shape (the
  // targets' reference), and of the provider's own shape (what its transaction alone costs).
  const perfectRef = new Map<number, Throughput>();
  const shapeRef = new Map<number, Throughput>();
  for (const r of results.values()) {
    const inFlight = r.scenario.callers * (r.scenario.keysPerCall ?? 1);
    if (r.scenario.family === 'raw-txn') rawRef.set(r.scenario.callers, summaries.get(r.scenario.id)!);
    if (r.scenario.family === 'raw-minimal-batch') perfectRef.set(inFlight, throughput(r.scenario.id)!);
    if (r.scenario.family === 'raw-batch') shapeRef.set(inFlight, throughput(r.scenario.id)!);
  }
  const raw64 = rawRef.get(64);
  if (raw64) rawRef.set(256, raw64);

  const rows: TableRow[] = [...results.values()].map(({ scenario: s }) => {
    const summary = summaries.get(s.id)!;
    const keys = s.keysPerCall ?? 1;
    const callers = s.callers * keys;
    const callersLabel = keys > 1 ? `${s.callers}×${keys}` : String(s.callers);
    const cpu = cpuUsPerOp.get(s.id)!;
    const own = { opsPerSecond: summary.opsPerSecond, cpuUsPerOp: cpu };
    const provider = s.family.startsWith('provider') || s.family === 'baseline-acquire';
    // The provider-shape batch is itself compared with the minimal one: what the richer shape costs before any client.
    const shaped = provider ? vsPerfect(own, shapeRef.get(callers)) : '';
    const perfect = provider || s.family === 'raw-batch' ? vsPerfect(own, perfectRef.get(callers)) : '';
    return { label: s.label, callers, callersLabel, summary, vsRawTxn: vsRaw({ callers, summary }, rawRef), cpuUsPerOp: cpu, vsPerfect: perfect, vsShapeBatch: shaped };
  });
  // Only the burst has a throughput worth a row; the spread arrivals are paced on purpose.
  for (const h of held.filter((x) => x.arrival === 'burst')) {
    const summary = summarize(h.load);
    const label = `provider acquireLease, ${h.keys} keys held (60 s TTL)`;
    rows.push({ label, callers: 256, callersLabel: '256', summary, vsRawTxn: vsRaw({ callers: 256, summary }, rawRef), cpuUsPerOp: Number.NaN, vsPerfect: '' });
  }

  const checks = checkTargets({
    rawTxnP50Ms: summaries.get('raw-txn-1')?.p50,
    acquireP50Ms: summaries.get('provider-acquire-1')?.p50,
    acquire64: throughput('provider-acquire-64'),
    perfect64: throughput('raw-minimal-batch-1x64'),
    acquire256: throughput('provider-acquire-256'),
    perfect256: throughput('raw-minimal-batch-4x64'),
    heldLeases: held.map((h) => ({ arrival: h.arrival, keys: h.keysHeld, liveLeases: h.liveLeases })),
    hold1000Ttl15: providerHold(holds, 1000, 15_000),
    hold2000Ttl3: providerHold(holds, 2000, 3_000),
  });

  const pairedRatios: Assembled['pairedRatios'] = {};
  const pair = (name: string, a: string, b: string, field: 'p50' | 'opsPerSecond' | 'cpuUsPerOp') => {
    const ra = results.get(a)?.runs;
    const rb = results.get(b)?.runs;
    if (!ra || !rb || ra.length !== rb.length || ra.length === 0) return;
    const num = ra.map((r) => r[field]);
    const den = rb.map((r) => r[field]);
    pairedRatios[name] = { perRound: num.map((n, i) => n / den[i]!), median: medianRatio(num, den) };
  };
  pair('acquire p50 / raw Txn p50', 'provider-acquire-1', 'raw-txn-1', 'p50');
  pair('acquire shape p50 / raw Txn p50', 'raw-acquire-shape-1', 'raw-txn-1', 'p50');
  // The same route as the provider's (it sends to the leader): what is left of the distance once routing is equal.
  pair('acquire p50 / raw Txn to the leader p50', 'provider-acquire-1', 'raw-txn-leader-1', 'p50');
  pair('acquire ×64 / perfect minimal batch 1×64 to the leader (keys/s)', 'provider-acquire-64', 'raw-minimal-batch-leader-1x64', 'opsPerSecond');
  pair('acquire ×256 / perfect minimal batches 4×64 to the leader (keys/s)', 'provider-acquire-256', 'raw-minimal-batch-leader-4x64', 'opsPerSecond');
  pair('acquire ×64 / perfect minimal batch 1×64 (keys/s)', 'provider-acquire-64', 'raw-minimal-batch-1x64', 'opsPerSecond');
  pair('acquire ×256 / perfect minimal batches 4×64 (keys/s)', 'provider-acquire-256', 'raw-minimal-batch-4x64', 'opsPerSecond');
  pair('acquire ×64 CPU / perfect minimal 1×64 CPU per key', 'provider-acquire-64', 'raw-minimal-batch-1x64', 'cpuUsPerOp');
  pair('acquire ×256 CPU / perfect minimal 4×64 CPU per key', 'provider-acquire-256', 'raw-minimal-batch-4x64', 'cpuUsPerOp');
  pair('acquire ×64 / perfect provider-shape batch 1×64 (keys/s)', 'provider-acquire-64', 'raw-batch-1x64', 'opsPerSecond');
  pair('acquire ×256 / perfect provider-shape batches 4×64 (keys/s)', 'provider-acquire-256', 'raw-batch-4x64', 'opsPerSecond');
  pair('provider-shape batch 4×64 / minimal batch 4×64 (keys/s)', 'raw-batch-4x64', 'raw-minimal-batch-4x64', 'opsPerSecond');
  pair('acquire ×64 / baseline build ×64 (keys/s)', 'provider-acquire-64', 'baseline-acquire-64', 'opsPerSecond');
  pair('acquire ×256 / baseline build ×256 (keys/s)', 'provider-acquire-256', 'baseline-acquire-256', 'opsPerSecond');
  pair('acquire ×256 CPU / baseline build ×256 CPU', 'provider-acquire-256', 'baseline-acquire-256', 'cpuUsPerOp');
  pair('acquire ×64 / raw Txn ×64 (ops/s)', 'provider-acquire-64', 'raw-txn-64', 'opsPerSecond');
  pair('acquire ×64 / Redis ×64 (ops/s)', 'provider-acquire-64', 'redis-set-nx-64', 'opsPerSecond');
  return { summaries, cpuUsPerOp, rows, checks, pairedRatios };
}
