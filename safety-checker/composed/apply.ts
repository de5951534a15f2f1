import type { FaultableCluster } from '../../launcher/types.js';
import { machineClock } from '../recorder.js';
import { describeFault, type FaultSchedule, type ScheduledFault } from './schedule.js';

/**
 * The client side of a workload, for the faults that hit a client process rather than the cluster. A fault on
 * process p reaches process `p % processes` of every workload of the run, so several workloads (leases, events)
 * ride one seeded timeline.
 */
export interface ClientFaults {
  readonly processes: number;
  /** Stops process `p` (its monotonic clock with it) for about `ms`; resolves once it runs again. */
  suspend(p: number, ms: number): Promise<void>;
  /** Steps process `p`'s wall clock by `ms` (negative: back); resolves once the process has stepped. */
  stepClock(p: number, ms: number): Promise<void>;
  /** Process `p` sends fresh work as fast as it can for `ms`; resolves when the flood is over. */
  flood(p: number, ms: number): Promise<void>;
}

/** Fills etcd's backend quota until its NOSPACE alarm is raised, and recovers as an operator does. */
export interface SpaceFaults {
  /** Resolves once the alarm is raised. */
  fill(): Promise<void>;
  /** Compacts, defragments every member, disarms; resolves once no alarm is left. */
  recover(): Promise<void>;
}

export interface FaultTargets {
  readonly cluster: FaultableCluster;
  readonly clients: readonly ClientFaults[];
  /** Needed when the schedule has a `nospace`. */
  readonly space?: SpaceFaults;
}

/** A fault as it was applied: the scheduled one with when it really began, held and ended, on the run's clock. */
export interface AppliedFault extends ScheduledFault {
  /** Injection began. */
  readonly startedAt: number;
  /** Fully in place (a kill's member gone, an alarm raised). */
  readonly injectedAt: number;
  readonly healStartedAt: number;
  /** Undone: a killed member serves again, a paused one runs, an alarm is disarmed, a suspended process runs. */
  readonly endedAt: number;
}

export interface ApplyOptions {
  /** The run's clock, the one its histories are recorded on. @default machineClock */
  readonly now?: () => number;
  readonly log?: (line: string) => void;
}

/**
 * Applies a schedule: every fault starts at its offset from now, whatever else is in place — faults overlap as the
 * schedule says — is held, then healed. Resolves with each fault as applied once every one is healed; when an
 * injection or a heal fails, the others still run to their end, every network fault is cleared, and it rejects.
 */
export async function applySchedule(schedule: FaultSchedule, targets: FaultTargets, options: ApplyOptions = {}): Promise<AppliedFault[]> {
  const now = options.now ?? machineClock;
  const log = options.log ?? (() => {});
  const origin = performance.now();
  const settled = await Promise.allSettled(
    schedule.faults.map(async (fault): Promise<AppliedFault> => {
      await sleep(origin + fault.atMs - performance.now());
      const startedAt = now();
      log(`inject ${describeFault(fault)}`);
      const heal = await inject(fault, targets);
      const injectedAt = now();
      await sleep(fault.holdMs - (now() - injectedAt));
      const healStartedAt = now();
      await heal();
      const endedAt = now();
      if (fault.kind !== 'clock-step') log(`healed #${fault.id} ${fault.kind} after ${((endedAt - startedAt) / 1000).toFixed(1)} s`);
      return { ...fault, startedAt, injectedAt, healStartedAt, endedAt };
    }),
  );
  const failed = settled.flatMap((s, i) => (s.status === 'rejected' ? [`${describeFault(schedule.faults[i]!)}: ${String(s.reason)}`] : []));
  if (failed.length > 0) {
    await targets.cluster.healAll();
    throw new Error(`faults of seed ${schedule.seed} failed:\n  ${failed.join('\n  ')}`);
  }
  return settled.map((s) => (s as PromiseFulfilledResult<AppliedFault>).value);
}

/** Puts the fault in place; resolves with what undoes it (for a suspend or a flood: waits for its end). */
async function inject(fault: ScheduledFault, { cluster, clients, space }: FaultTargets): Promise<() => Promise<void>> {
  const [member] = fault.members;
  const eachClient = (act: (c: ClientFaults, p: number) => Promise<void>) => Promise.all(clients.map((c) => act(c, fault.process! % c.processes)));
  switch (fault.kind) {
    case 'kill':
      await cluster.kill(member!);
      return () => cluster.restart(member!);
    case 'quorum-loss':
      for (const m of fault.members) await cluster.kill(m);
      // Restarted together: any one of them restores quorum with the survivor, and etcd needs no order.
      return async () => void (await Promise.all(fault.members.map((m) => cluster.restart(m))));
    case 'pause':
      await cluster.pause(member!);
      return () => cluster.resume(member!);
    case 'blackhole':
      await cluster.blackhole(member!);
      return () => cluster.heal(member!);
    case 'cut-link':
      await cluster.cutClient(member!);
      return () => cluster.heal(member!);
    case 'slow-link':
      // Later than a call's attempt timeout, sooner than its lease ends: the retry answers, then the first attempt lands.
      await cluster.setClientLatency(member!, 2500, 1000);
      return () => cluster.heal(member!);
    case 'clock-step':
      await eachClient((c, p) => c.stepClock(p, fault.stepMs!));
      return async () => {};
    case 'suspend': {
      const over = eachClient((c, p) => c.suspend(p, fault.holdMs));
      return async () => void (await over);
    }
    case 'flood': {
      const over = eachClient((c, p) => c.flood(p, fault.holdMs));
      return async () => void (await over);
    }
    case 'nospace': {
      if (space === undefined) throw new Error('the schedule has a nospace fault: FaultTargets.space is needed');
      await space.fill();
      return () => space.recover();
    }
  }
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}
