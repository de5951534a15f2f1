import type { ClusterMeter } from '../cluster-meter.js';
import { meterDelta } from '../cluster-meter.js';
import { revokeAllLeases, type EtcdReset } from '../reset.js';
import type { HoldClients, HoldDesign } from './designs.js';

/** One hold configuration: how many keys, with which TTL. */
export interface HoldConfig {
  keys: number;
  ttlMs: number;
}

/** One design holding one configuration, measured over a steady window. */
export interface HoldResult {
  design: string;
  label: string;
  onEtcd: boolean;
  keys: number;
  ttlMs: number;
  windowS: number;
  renewsPerSecond: number;
  failures: number;
  firstFailure?: string;
  renewP50Ms: number;
  renewP99Ms: number;
  /** Committed Raft proposals per second (undefined off etcd). */
  proposalsPerSecond?: number;
  /** The three members' CPU, in cores. */
  memberCores?: number;
  /** This process's CPU, in cores. */
  clientCores: number;
  /** Seconds taking the keys took (untimed setup). */
  setupS: number;
  /** Set when the design could not hold this many keys here. */
  error?: string;
}

export interface HoldMeasureOptions {
  /** The steady window over which rates are measured. */
  windowMs: number;
  /** Called at the end of the window, while the keys are still held (e.g. to sample memory). */
  whileHeld?: () => void;
  /** Runs exactly around the measured window (e.g. a CPU profile of it); `end` gets the renewals answered in it. */
  window?: { start(): Promise<void>; end(renewals: number): Promise<void> };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Takes the keys, lets the renewal timers run one full period (every key's timer has then fired once: the rate is
 * steady), then measures one window: renewals answered, etcd's committed proposals and member CPU, this process's
 * CPU. Then stops the hold and clears every lease and key, outside the window, so the next hold starts clean.
 */
export async function measureHold(design: HoldDesign, config: HoldConfig, clients: HoldClients, meter: ClusterMeter, reset: EtcdReset, runId: string, options: HoldMeasureOptions): Promise<HoldResult> {
  const base = { design: design.id, label: design.label, onEtcd: design.onEtcd, keys: config.keys, ttlMs: config.ttlMs };
  const setupStarted = performance.now();
  let holding;
  try {
    holding = await design.hold(clients, config.keys, config.ttlMs, runId);
  } catch (error) {
    await cleanUp(clients, reset);
    return { ...base, ...empty, setupS: (performance.now() - setupStarted) / 1000, error: error instanceof Error ? error.message : String(error) };
  }
  const setupS = (performance.now() - setupStarted) / 1000;
  try {
    await sleep(config.ttlMs / 3 + 500);
    holding.take();
    await options.window?.start();
    const from = await meter.read();
    const cpuFrom = process.cpuUsage();
    await sleep(options.windowMs);
    const to = await meter.read();
    const cpu = process.cpuUsage(cpuFrom);
    const counts = holding.take();
    await options.window?.end(counts.renews);
    options.whileHeld?.();
    const delta = meterDelta(from, to);
    const result: HoldResult = {
      ...base,
      windowS: delta.seconds,
      renewsPerSecond: counts.renews / delta.seconds,
      failures: counts.failures,
      renewP50Ms: counts.latency.percentile(50),
      renewP99Ms: counts.latency.percentile(99),
      clientCores: (cpu.user + cpu.system) / 1e6 / delta.seconds,
      setupS,
    };
    if (counts.firstFailure !== undefined) result.firstFailure = counts.firstFailure;
    if (design.onEtcd) {
      result.proposalsPerSecond = delta.proposalsPerSecond;
      result.memberCores = delta.memberCores;
    }
    return result;
  } catch (error) {
    return { ...base, ...empty, setupS, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await holding.stop().catch(() => {});
    await cleanUp(clients, reset);
  }
}

/** etcd's own proposals with nothing held (its periodic SYNC and the like): the floor under every row. */
export async function measureIdle(meter: ClusterMeter, windowMs: number): Promise<{ proposalsPerSecond: number; memberCores: number; clientCores: number }> {
  const from = await meter.read();
  const cpuFrom = process.cpuUsage();
  await sleep(windowMs);
  const cpu = process.cpuUsage(cpuFrom);
  const d = meterDelta(from, await meter.read());
  return { proposalsPerSecond: d.proposalsPerSecond, memberCores: d.memberCores, clientCores: (cpu.user + cpu.system) / 1e6 / d.seconds };
}

const empty = { windowS: 0, renewsPerSecond: 0, failures: 0, renewP50Ms: Number.NaN, renewP99Ms: Number.NaN, clientCores: 0 };

async function cleanUp(clients: HoldClients, reset: EtcdReset): Promise<void> {
  await revokeAllLeases(clients.etcd);
  await reset.run();
}
