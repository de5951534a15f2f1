import type { FaultableCluster } from '../../launcher/types.js';
import { machineClock } from '../recorder.js';
import { applySchedule, type AppliedFault, type ClientFaults, type SpaceFaults } from './apply.js';
import type { WorkloadVerdict } from './judge.js';
import { deriveSeed } from './rng.js';
import { describeFault, generateSchedule, type FaultSchedule, type ScheduleOptions } from './schedule.js';

/** A workload riding a composed run: the run starts it, applies the faults, then stops and judges it. */
export interface ComposedWorkload {
  readonly name: string;
  /** Its client processes, for the faults that hit one (suspend, clock step, flood); none when absent. */
  readonly clients?: ClientFaults;
  /** Once every fault is healed and the cluster healthy: stops every caller and waits for its calls in flight. */
  stop(): Promise<void>;
  /** Judges what it recorded against the faults as applied. */
  judge(timeline: readonly AppliedFault[]): WorkloadVerdict | Promise<WorkloadVerdict>;
}

export interface WorkloadContext {
  readonly cluster: FaultableCluster;
  /** The workload's own seed, derived from the run's. */
  readonly seed: number;
}

/** Starts a workload (resolves once it is running). */
export type WorkloadFactory = (context: WorkloadContext) => Promise<ComposedWorkload>;

export interface ComposedRunOptions {
  readonly cluster: FaultableCluster;
  readonly seed: number;
  /** Every workload rides the same fault timeline (a lease workload, an event workload, …). */
  readonly workloads: readonly WorkloadFactory[];
  /** The schedule's shape; its seed, members and processes come from the run. */
  readonly schedule: Omit<ScheduleOptions, 'seed' | 'members' | 'processes'>;
  /** Needed when the schedule may draw a `nospace` (spaceFaults, on a cluster with a small quota). */
  readonly space?: SpaceFaults;
  /** Fault-free time before the first fault. @default 2000 */
  readonly warmUpMs?: number;
  /** Fault-free time after the last heal, before the workloads stop. @default 3000 */
  readonly settleMs?: number;
  /** The clock every history of the run is recorded on. @default machineClock */
  readonly now?: () => number;
  readonly log?: (line: string) => void;
}

export interface ComposedRunResult {
  readonly seed: number;
  readonly schedule: FaultSchedule;
  readonly timeline: readonly AppliedFault[];
  readonly verdicts: readonly WorkloadVerdict[];
  readonly durationMs: number;
}

/**
 * One seed of a composed-fault run: starts the workloads, lets them warm up, applies the seed's schedule (faults
 * overlapping), waits for a healthy cluster and a fault-free settle, stops every workload and judges each against the
 * faults as they were applied. The schedule follows from the seed alone: the same seed replays the same faults.
 */
export async function runComposed(options: ComposedRunOptions): Promise<ComposedRunResult> {
  const { cluster, seed } = options;
  const now = options.now ?? machineClock;
  const log = options.log ?? (() => {});
  const began = performance.now();
  // A NOSPACE of an earlier seed left history behind; each seed starts with the space it had.
  await options.space?.recover();
  const workloads: ComposedWorkload[] = [];
  let timeline: AppliedFault[] = [];
  let schedule: FaultSchedule | undefined;
  try {
    for (const [i, start] of options.workloads.entries()) workloads.push(await start({ cluster, seed: deriveSeed(seed, i) }));
    const clients = workloads.flatMap((w) => (w.clients === undefined ? [] : [w.clients]));
    schedule = generateSchedule({
      ...options.schedule,
      seed,
      members: cluster.size,
      processes: Math.max(1, ...clients.map((c) => c.processes)),
    });
    for (const f of schedule.faults) log(`scheduled ${describeFault(f)}`);
    await sleep(options.warmUpMs ?? 2000);
    timeline = await applySchedule(schedule, { cluster, clients, ...(options.space ? { space: options.space } : {}) }, { now, log });
    await cluster.waitHealthy(60_000);
    await sleep(options.settleMs ?? 3000);
  } finally {
    await Promise.all(workloads.map((w) => w.stop()));
  }
  const verdicts: WorkloadVerdict[] = [];
  for (const w of workloads) verdicts.push(await w.judge(timeline));
  return { seed, schedule, timeline, verdicts, durationMs: performance.now() - began };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
