import type { HeldLeasesResult } from './held-leases.js';
import { vsRaw, type TableRow } from './report.js';
import type { ScenarioResult } from './rounds.js';
import { combine, medianRatio, perKey, summarize, type Summary } from './stats.js';
import { checkTargets, type TargetCheck } from './targets.js';

export interface Assembled {
  summaries: Map<string, Summary>;
  rows: TableRow[];
  checks: TargetCheck[];
  /**
   * The target ratios computed round by round (each round's pair ran seconds apart), and their
   * median: if the pooled ratio and the per-round median disagree, a noisy round moved the pooled one.
   */
  pairedRatios: Record<string, { perRound: number[]; median: number }>;
}

/** Turns the raw results of a run into the table, the target checks and the paired ratios. */
export function assemble(results: ReadonlyMap<string, ScenarioResult>, held: readonly HeldLeasesResult[]): Assembled {
  const summaries = new Map<string, Summary>(
    [...results].map(([id, r]) => [id, perKey(summarize(combine(r.measurements)), r.scenario.keysPerCall ?? 1)]),
  );

  // Each row is compared with the raw Txn at its concurrency; 256 callers with the raw Txn at 64,
  // the reference the targets use (a raw Txn does not get faster beyond 64 callers).
  const rawRef = new Map<number, Summary>();
  for (const r of results.values()) {
    if (r.scenario.family === 'raw-txn') rawRef.set(r.scenario.callers, summaries.get(r.scenario.id)!);
  }
  const raw64 = rawRef.get(64);
  if (raw64) rawRef.set(256, raw64);

  const rows: TableRow[] = [...results.values()].map(({ scenario: s }) => {
    const summary = summaries.get(s.id)!;
    const keys = s.keysPerCall ?? 1;
    const callers = s.callers * keys;
    const callersLabel = keys > 1 ? `${s.callers}×${keys}` : String(s.callers);
    return { label: s.label, callers, callersLabel, summary, vsRawTxn: vsRaw({ callers, summary }, rawRef) };
  });
  // Only the burst has a throughput worth a row; the spread arrivals are paced on purpose.
  for (const h of held.filter((x) => x.arrival === 'burst')) {
    const summary = summarize(h.load);
    const label = `provider acquireLease, ${h.keys} keys held (60 s TTL)`;
    rows.push({ label, callers: 256, callersLabel: '256', summary, vsRawTxn: vsRaw({ callers: 256, summary }, rawRef) });
  }

  const checks = checkTargets({
    rawTxnP50Ms: summaries.get('raw-txn-1')?.p50,
    acquireP50Ms: summaries.get('provider-acquire-1')?.p50,
    rawTxn64OpsPerSecond: summaries.get('raw-txn-64')?.opsPerSecond,
    acquire64OpsPerSecond: summaries.get('provider-acquire-64')?.opsPerSecond,
    redis64OpsPerSecond: summaries.get('redis-set-nx-64')?.opsPerSecond,
    heldLeases: held.map((h) => ({ arrival: h.arrival, keys: h.keysHeld, liveLeases: h.liveLeases })),
  });

  const pairedRatios: Assembled['pairedRatios'] = {};
  const pair = (name: string, a: string, b: string, field: 'p50' | 'opsPerSecond') => {
    const ra = results.get(a)?.runs;
    const rb = results.get(b)?.runs;
    if (!ra || !rb || ra.length !== rb.length || ra.length === 0) return;
    const num = ra.map((r) => r[field]);
    const den = rb.map((r) => r[field]);
    pairedRatios[name] = { perRound: num.map((n, i) => n / den[i]!), median: medianRatio(num, den) };
  };
  pair('acquire p50 / raw Txn p50', 'provider-acquire-1', 'raw-txn-1', 'p50');
  pair('acquire shape p50 / raw Txn p50', 'raw-acquire-shape-1', 'raw-txn-1', 'p50');
  pair('acquire ×64 / raw Txn ×64 (ops/s)', 'provider-acquire-64', 'raw-txn-64', 'opsPerSecond');
  pair('acquire ×64 / Redis ×64 (ops/s)', 'provider-acquire-64', 'redis-set-nx-64', 'opsPerSecond');
  pair('acquire ×64 / perfect batch 1×64 (ops/s)', 'provider-acquire-64', 'raw-batch-1x64', 'opsPerSecond');
  return { summaries, rows, checks, pairedRatios };
}
