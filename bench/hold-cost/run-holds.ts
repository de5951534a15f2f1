import type { ClusterMeter } from '../cluster-meter.js';
import type { EtcdReset } from '../reset.js';
import { roundOrder } from '../schedule.js';
import type { HoldClients, HoldDesign } from './designs.js';
import { measureHold, measureIdle, type HoldConfig, type HoldResult } from './measure-hold.js';

export interface HoldRun {
  idle: { proposalsPerSecond: number; memberCores: number; clientCores: number };
  results: HoldResult[];
}

/** The window over which one hold is measured: two renewal periods, at least 6 s. */
export function holdWindowMs(ttlMs: number): number {
  return Math.max(6_000, (2 * ttlMs) / 3);
}

/**
 * Every design at every configuration. Within a configuration the designs run back to back, in alternating order
 * from one configuration to the next (schedule.ts), so no design always follows the same one.
 */
export async function runHolds(designs: readonly HoldDesign[], configs: readonly HoldConfig[], clients: HoldClients, meter: ClusterMeter, reset: EtcdReset, log: (m: string) => void, windowScale = 1): Promise<HoldRun> {
  const idle = await measureIdle(meter, 3_000);
  log(`idle: ${idle.proposalsPerSecond.toFixed(1)} proposals/s, members ${(idle.memberCores * 100).toFixed(0)} % of a core, this process ${(idle.clientCores * 100).toFixed(0)} %`);
  const results: HoldResult[] = [];
  for (const [c, config] of configs.entries()) {
    for (const design of roundOrder(designs, c)) {
      const windowMs = holdWindowMs(config.ttlMs) * windowScale;
      log(`hold: ${design.label}, ${config.keys} leases, TTL ${config.ttlMs / 1000} s…`);
      const r = await measureHold(design, config, clients, meter, reset, `h${c}-${design.id}`, { windowMs });
      const etcd = r.proposalsPerSecond === undefined ? '' : `, ${r.proposalsPerSecond.toFixed(1)} proposals/s`;
      log(r.error ? `  could not hold: ${r.error}` : `  ${r.renewsPerSecond.toFixed(0)} renews/s${etcd}, p99 ${r.renewP99Ms.toFixed(1)} ms, ${r.failures} failed`);
      results.push(r);
    }
  }
  return { idle, results };
}
