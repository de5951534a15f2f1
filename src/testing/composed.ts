import { runComposed, type ComposedRunResult, type WorkloadFactory } from '../../safety-checker/composed/run.js';
import { CLIENT_FAULTS, FAULT_KINDS, type FaultKind } from '../../safety-checker/composed/schedule.js';
import type { EtcdTestCluster } from './cluster.js';

export interface RunComposedFaultsOptions {
  /** A cluster from `startEtcdCluster`; give it `quotaBackendBytes` for `nospace` faults. */
  cluster: EtcdTestCluster;
  /** The same seed replays the same schedule of faults. */
  seed: number;
  /** Faults start within this many ms; each is held for seconds, as production's faults last, and they overlap. */
  spanMs: number;
  /** Your workloads (your app's processes, recording what they do); every one rides the same fault timeline. */
  workloads: readonly WorkloadFactory[];
  /**
   * The fault kinds to draw from. @default every cluster fault — kill, pause, blackhole, cut-link, slow-link,
   * quorum-loss, and nospace when the cluster has a quota; client faults (clock-step, suspend, flood) when asked for,
   * and only reaching workloads that give `clients`
   */
  kinds?: readonly FaultKind[];
  /** How long quorum is gone in a `quorum-loss`. @default 20 000 */
  outageMs?: number;
  /** Fault-free time before the first fault. @default 2000 */
  warmUpMs?: number;
  /** Fault-free time after the last heal, before the workloads stop. @default 3000 */
  settleMs?: number;
  /** Gets one line per fault scheduled, injected and healed. */
  log?: (line: string) => void;
}

/**
 * One seeded run of composed faults against your own workload: starts every workload, applies the seed's schedule
 * (kills, pauses, blackholes, cut and slow links, quorum loss, a full disk — overlapping), waits for a healthy cluster,
 * stops the workloads and has each judge what it recorded against the faults as applied. A workload is a factory
 * `({ cluster, seed }) => Promise<{ name, stop(), judge(timeline), clients? }>`; `judgeLeaseHistory` judges a
 * history of `recordLeaseCalls` the way this package's chaos run does.
 */
export function runComposedFaults(options: RunComposedFaultsOptions): Promise<ComposedRunResult> {
  const { cluster, seed, spanMs } = options;
  if (!Number.isInteger(seed)) throw new TypeError(`options.seed must be an integer, got ${String(seed)}`);
  if (!Number.isFinite(spanMs) || spanMs <= 0) throw new RangeError(`options.spanMs must be a positive number, got ${String(spanMs)}`);
  if (options.workloads.length === 0) throw new RangeError('options.workloads must name at least one workload');
  const hasQuota = cluster.quotaBackendBytes !== undefined;
  const kinds = options.kinds ?? FAULT_KINDS.filter((kind) => !CLIENT_FAULTS.has(kind) && (kind !== 'nospace' || hasQuota));
  if (kinds.includes('nospace') && !hasQuota) throw new RangeError("options.kinds has 'nospace': start the cluster with quotaBackendBytes");
  return runComposed({
    cluster,
    seed,
    workloads: options.workloads,
    schedule: { spanMs, kinds, ...(options.outageMs === undefined ? {} : { outageMs: options.outageMs }) },
    ...(hasQuota ? { space: { fill: () => cluster.fillDisk(), recover: () => cluster.freeDisk() } } : {}),
    ...(options.warmUpMs === undefined ? {} : { warmUpMs: options.warmUpMs }),
    ...(options.settleMs === undefined ? {} : { settleMs: options.settleMs }),
    ...(options.log === undefined ? {} : { log: options.log }),
  });
}
