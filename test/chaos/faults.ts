import type { TestCluster } from '../harness/cluster.js';

/** A fault as it happened: when it began and ended on the workload's clock. */
export interface FaultWindow {
  name: string;
  /** `single`: one member affected, the cluster keeps quorum — callers should see no errors. */
  scope: 'single' | 'quorum';
  /** Does losing this member force an election? (leader kill / pause) */
  hitsLeader: boolean;
  start: number;
  end: number;
  /** For a single-member leader fault: how long until the survivors had elected a new leader (as the harness polls it). */
  electedAfterMs?: number;
  /** When the fault was fully in place (inject returned) and when healing began: the fault held in between. */
  injectedAt: number;
  healStartedAt: number;
}

export interface FaultStep {
  name: string;
  scope: FaultWindow['scope'];
  hitsLeader: boolean;
  /** How long the fault is held, when not the run's default. */
  holdMs?: number;
  /** Injects the fault; returns the function that heals it. */
  inject(cluster: TestCluster): Promise<() => Promise<void>>;
}

/** etcd's default election timeout is 1 s: pausing the leader for longer forces an election. */
export const chaosSteps = (): FaultStep[] => [
  {
    name: 'kill the leader (SIGKILL), then restart it',
    scope: 'single',
    hitsLeader: true,
    async inject(c) {
      const leader = await c.leader();
      await c.kill(leader);
      return () => c.restart(leader);
    },
  },
  {
    name: 'pause the leader past the election timeout, then resume it',
    scope: 'single',
    hitsLeader: true,
    async inject(c) {
      const leader = await c.leader();
      await c.pause(leader);
      return () => c.resume(leader);
    },
  },
  {
    name: 'blackhole a follower, then heal it',
    scope: 'single',
    hitsLeader: false,
    async inject(c) {
      const leader = await c.leader();
      const follower = (leader + 1) % c.size;
      await c.blackhole(follower);
      return () => c.heal(follower);
    },
  },
  {
    name: 'take quorum away (kill two members), then give it back',
    scope: 'quorum',
    hitsLeader: true,
    // longer than a call's 5 s deadline, so the workers' calls sent into the outage end inside it too
    holdMs: 7000,
    async inject(c) {
      const leader = await c.leader();
      const victims = [leader, (leader + 1) % c.size];
      for (const v of victims) await c.kill(v);
      // Restarted together: either one alone restores quorum with the survivor, and etcd needs no order.
      return async () => {
        await Promise.all(victims.map((v) => c.restart(v)));
      };
    },
  },
];

/**
 * Runs each fault in turn: inject, hold it for `holdMs`, heal, wait until the cluster is healthy,
 * let the workload settle for `settleMs`. Returns the windows, measured on `now`.
 */
export async function runFaults(
  cluster: TestCluster,
  steps: FaultStep[],
  holdMs: number,
  settleMs: number,
  now: () => number,
  log: (line: string) => void,
  /** Runs while a fault is held (e.g. extra calls that must end inside it); awaited before healing. */
  whileHeld: (step: FaultStep) => Promise<void> = async () => {},
): Promise<FaultWindow[]> {
  const windows: FaultWindow[] = [];
  for (const step of steps) {
    const start = now();
    log(`fault: ${step.name}`);
    const heal = await step.inject(cluster);
    const injectedAt = now();
    // The floor of any stall: no write can commit before the survivors elect a leader.
    const electedAfterMs = step.scope === 'single' && step.hitsLeader ? (await cluster.leader(), now() - start) : undefined;
    await Promise.all([
      whileHeld(step),
      // held from the moment the fault was fully in place (killing containers can take seconds)
      new Promise((r) => setTimeout(r, Math.max(0, (step.holdMs ?? holdMs) - (now() - injectedAt)))),
    ]);
    log(`heal: ${step.name}`);
    const healStartedAt = now();
    await heal();
    await cluster.waitHealthy(60_000);
    log('healthy again');
    const end = now();
    windows.push({
      name: step.name,
      scope: step.scope,
      hitsLeader: step.hitsLeader,
      start,
      end,
      injectedAt,
      healStartedAt,
      ...(electedAfterMs === undefined ? {} : { electedAfterMs }),
    });
    await new Promise((r) => setTimeout(r, settleMs));
  }
  return windows;
}
