import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Assembled } from './assemble.js';
import type { HeldLeasesResult } from './held-leases.js';
import { formatGrowth, memoryGrowth, type MemorySample } from './memory.js';
import { formatChecks, formatTable, fmtRatio } from './report.js';
import type { ScenarioResult } from './rounds.js';
import { summarize } from './stats.js';
import { formatHoldTable } from './hold-cost/hold-table.js';
import type { HoldRun } from './hold-cost/run-holds.js';

export interface RunOutput {
  startedAt: number;
  config: object;
  quick: boolean;
  results: ReadonlyMap<string, ScenarioResult>;
  assembled: Assembled;
  held: readonly HeldLeasesResult[];
  memory: MemorySample[];
  holdRun?: HoldRun | undefined;
}

/** The human part: table, memory, what the provider sent, paired ratios, target verdicts. */
export function printReport(out: RunOutput): void {
  const { assembled, results, memory, quick } = out;
  console.log('');
  console.log(formatTable(assembled.rows));
  console.log('(vs raw Txn: single-caller rows compare p50 latency with the raw Txn ×1; concurrent rows compare ops/s with the raw Txn ×64)');
  console.log('');
  const growth = memoryGrowth(memory);
  if (growth) console.log(formatGrowth(growth));
  for (const [id, r] of results) {
    const p = r.probe;
    if (p.txns === 0) continue;
    console.log(
      `probe ${id}: ${p.ops} ops in ${p.txns} txns (mean batch ${(p.ops / p.txns).toFixed(1)}, sizes ${JSON.stringify(p.batchSizes)}); ` +
        `${p.grants} LeaseGrants; ${p.blockingLeaseLookups}/${p.leaseLookups} lease lookups waited on a grant`,
    );
  }
  for (const h of out.held) {
    const how = h.arrival === 'spread' ? `arriving over ${h.spreadMs / 1000} s` : 'acquired in one burst';
    console.log(`held keys: ${h.keysHeld} keys ${how}, TTL ${h.ttlMs / 1000} s → ${h.leasesCarryingKeys} etcd leases carry them, ${h.liveLeases} live leases in the cluster`);
  }
  if (out.holdRun) {
    console.log('');
    console.log('Hold cost: every lease renewed every TTL/3 on its own timer (proposals: etcd_server_proposals_committed_total; CPU: share of one core)');
    console.log(formatHoldTable(out.holdRun.results));
    const idle = out.holdRun.idle;
    console.log(
      `(idle, nothing held: ${idle.proposalsPerSecond.toFixed(1)} proposals/s, etcd members ${(idle.memberCores * 100).toFixed(0)} % of a core, ` +
        `this process ${(idle.clientCores * 100).toFixed(0)} % — included in every row)`,
    );
  }
  for (const [name, r] of Object.entries(assembled.pairedRatios)) {
    console.log(`paired ${name}: median ${fmtRatio(r.median)} over rounds [${r.perRound.map(fmtRatio).join(', ')}]`);
  }
  console.log('');
  console.log(formatChecks(assembled.checks, !quick));
}

/** Everything, per round, to `path` (default `bench/results/<timestamp>.json`). Returns the path written. */
export function writeJson(out: RunOutput, path: string | undefined, errors: number): string {
  const file = path ?? join(dirname(fileURLToPath(import.meta.url)), 'results', `${new Date(out.startedAt).toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(file), { recursive: true });
  const doc = {
    startedAt: new Date(out.startedAt).toISOString(),
    durationS: (Date.now() - out.startedAt) / 1000,
    config: out.config,
    machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model, loadavgAtEnd: loadavg() },
    scenarios: Object.fromEntries(
      [...out.results].map(([id, r]) => [
        id,
        {
          label: r.scenario.label,
          family: r.scenario.family,
          callers: r.scenario.callers,
          keysPerCall: r.scenario.keysPerCall ?? 1,
          summary: out.assembled.summaries.get(id),
          probe: r.probe.txns > 0 ? r.probe : undefined,
          runs: r.runs,
        },
      ]),
    ),
    heldLeases: out.held.map((h) => ({ ...h, load: summarize(h.load) })),
    memory: out.memory,
    memoryGrowth: memoryGrowth(out.memory),
    cpuUsPerOp: Object.fromEntries(out.assembled.cpuUsPerOp),
    holdCost: out.holdRun,
    pairedRatios: out.assembled.pairedRatios,
    targets: out.assembled.checks,
    errors,
  };
  // NaN/Infinity (a percentile of nothing) are not JSON: write null.
  writeFileSync(file, JSON.stringify(doc, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2));
  return file;
}
