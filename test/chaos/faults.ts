import type { TestCluster } from '../harness/cluster.js';
import { waitFor } from '../support/wait.js';
import type { Rng } from './rng.js';
import type { RunningWorkload } from './workload.js';

/**
 * - `single`: one member is faulted and the cluster keeps quorum: callers should see no errors.
 * - `quorum`: quorum is gone: calls must fail, never report a false success.
 * - `client`: a client process is faulted (suspended), not the cluster.
 */
export type FaultScope = 'single' | 'quorum' | 'client';

/** A fault as it happened: when it began and ended on the workload's clock. */
export interface FaultWindow {
  readonly name: string;
  readonly scope: FaultScope;
  /** Does this fault force an election? (leader kill, pause, isolation) */
  readonly hitsLeader: boolean;
  readonly start: number;
  readonly end: number;
  /** For a leader fault: how long until a quorum named a new leader (as the harness polls it, every 100 ms). */
  readonly electedAfterMs?: number;
  /** When the fault was fully in place (inject returned) and when healing began: the fault held in between. */
  readonly injectedAt: number;
  readonly healStartedAt: number;
}

export interface FaultContext {
  readonly cluster: TestCluster;
  readonly workload: RunningWorkload;
  /** Which member or process a fault hits follows from the run's seed. */
  readonly rng: Rng;
}

export interface FaultStep {
  readonly name: string;
  readonly scope: FaultScope;
  readonly hitsLeader: boolean;
  /** How long the fault is held, when not the run's default. */
  readonly holdMs?: number;
  /** Injects the fault; resolves with the function that heals it. */
  inject(context: FaultContext): Promise<() => Promise<void>>;
}

const follower = async ({ cluster, rng }: FaultContext) => {
  const leader = await cluster.leader();
  return (leader + rng.int(1, cluster.size - 1)) % cluster.size;
};

export const killLeader: FaultStep = {
  name: 'kill the leader (SIGKILL), then restart it',
  scope: 'single',
  hitsLeader: true,
  async inject({ cluster }) {
    const leader = await cluster.leader();
    await cluster.kill(leader);
    return () => cluster.restart(leader);
  },
};

/** etcd's default election timeout is 1 s: pausing the leader for longer forces an election. */
export const pauseLeader: FaultStep = {
  name: 'pause the leader past the election timeout, then resume it',
  scope: 'single',
  hitsLeader: true,
  async inject({ cluster }) {
    const leader = await cluster.leader();
    await cluster.pause(leader);
    return () => cluster.resume(leader);
  },
};

/** A follower that hangs (SIGSTOP): its connections stay open and answer nothing; no election follows. */
export const pauseFollower: FaultStep = {
  name: 'pause a follower, then resume it',
  scope: 'single',
  hitsLeader: false,
  async inject(context) {
    const member = await follower(context);
    await context.cluster.pause(member);
    return () => context.cluster.resume(member);
  },
};

/** The leader's client and peer traffic stalls in both directions: the others elect a new leader, its clients' connections stay open. */
export const blackholeLeader: FaultStep = {
  name: 'blackhole the leader, then heal it',
  scope: 'single',
  hitsLeader: true,
  async inject({ cluster }) {
    const leader = await cluster.leader();
    await cluster.blackhole(leader);
    return () => cluster.heal(leader);
  },
};

/** The leader loses its peers but keeps its clients: their requests reach a member that can no longer commit. */
export const isolateLeader: FaultStep = {
  name: 'isolate the leader from its peers, clients still attached',
  scope: 'single',
  hitsLeader: true,
  async inject({ cluster }) {
    const leader = await cluster.leader();
    await cluster.isolate(leader);
    return () => cluster.heal(leader);
  },
};

export const blackholeFollower: FaultStep = {
  name: 'blackhole a follower, then heal it',
  scope: 'single',
  hitsLeader: false,
  async inject(context) {
    const member = await follower(context);
    await context.cluster.blackhole(member);
    return () => context.cluster.heal(member);
  },
};

/**
 * The member whose client link a link fault hits: the leader, where the providers send their attempts while every
 * member answers (transport/leader-finder.ts) — a follower's client link carries nothing of theirs to hold or slow.
 * Only the link between the clients and that member is faulted; its peers still hear it, so no election follows.
 */
const linkTarget = ({ cluster }: FaultContext) => cluster.leader();

/** Requests sent into the cut arrive when it heals, after their callers' retries have answered. */
export const cutClientLink: FaultStep = {
  name: 'cut the leader\u2019s client link, holding what was sent into it, then deliver it',
  scope: 'single',
  hitsLeader: false,
  async inject(context) {
    const { cluster } = context;
    const member = await linkTarget(context);
    await cluster.cutClient(member);
    return () => cluster.heal(member);
  },
};

/** The follower stops hearing the leader while the leader still hears it. */
export const oneWayFromLeader: FaultStep = {
  name: 'hold the leader\u2019s messages to one follower (asymmetric partition)',
  scope: 'single',
  hitsLeader: false,
  async inject(context) {
    const leader = await context.cluster.leader();
    const member = await follower(context);
    await context.cluster.holdOneWay(leader, member);
    return () => context.cluster.heal(member);
  },
};

/** Latency with jitter on every link of one member, peers included, below the election timeout. */
export const jitteryMember: FaultStep = {
  name: 'latency 100 ms + up to 100 ms jitter on every link of one member',
  scope: 'single',
  hitsLeader: false,
  async inject({ cluster, rng }) {
    const member = rng.int(0, cluster.size - 1);
    await cluster.setLatency(member, 100, 100);
    return () => cluster.heal(member);
  },
};

/**
 * Members whose clients' requests take 2.5–3.5 s to arrive: every attempt sent to one times out and is retried
 * elsewhere, and then lands — after the next one or two renews of the same owner (one every ttl/3), yet before
 * the lease it names has ended (ttl). Late writes, all the time it lasts. With two slow members most first
 * attempts are late (each client's breaker keeps one member closed at most).
 */
export function slowClientLinks(count: 1 | 2): FaultStep {
  return {
    name: `slow client link${count > 1 ? 's' : ''}: 2.5 s + up to 1 s jitter to ${count > 1 ? `the leader and ${count - 1} follower` : 'the leader'}`,
    scope: 'single',
    hitsLeader: false,
    async inject(context) {
      const { cluster } = context;
      const first = await linkTarget(context);
      const members = Array.from({ length: count }, (_, i) => (first + i) % cluster.size);
      for (const m of members) await cluster.setClientLatency(m, 2500, 1000);
      return async () => {
        for (const m of members) await cluster.heal(m);
      };
    },
  };
}

/**
 * One client process stops (its monotonic clock with it) while wall time and etcd run on: the process whose
 * holder last had a renew answered, so it holds a key while it sleeps.
 */
export function suspendHolder(ms: number): FaultStep {
  return {
    name: `suspend a client process that holds a key, for ${ms / 1000} s`,
    scope: 'client',
    hitsLeader: false,
    holdMs: ms,
    async inject({ workload, rng }) {
      const resumed = workload.suspend(processHoldingAKey(workload) ?? rng.int(0, workload.processes - 1), ms);
      return async () => {
        await resumed;
      };
    },
  };
}

/** Index of the worker process whose holder most recently had a renew answered true. */
function processHoldingAKey(workload: RunningWorkload): number | undefined {
  for (let i = workload.history.length - 1; i >= 0; i--) {
    const op = workload.history[i]!;
    const worker = /^p(\d+)\./.exec(op.client);
    if (op.op === 'renew' && op.outcome === 'ok' && worker !== null) return Number(worker[1]);
  }
  return undefined;
}

/** Held for `holdMs` (the chaos run holds it longer than a call's 5 s deadline, so calls sent into it end inside it). */
export const loseQuorum = (holdMs: number): FaultStep => ({
  name: 'take quorum away (kill two members), then give it back',
  scope: 'quorum',
  hitsLeader: true,
  holdMs,
  async inject({ cluster }) {
    const leader = await cluster.leader();
    const victims = [leader, (leader + 1) % cluster.size];
    for (const v of victims) await cluster.kill(v);
    // Restarted together: either one alone restores quorum with the survivor, and etcd needs no order.
    return async () => {
      await Promise.all(victims.map((v) => cluster.restart(v)));
    };
  },
});

/**
 * Waits until a quorum names a leader other than `old`. Right after the leader is isolated, it and its followers
 * still name it for up to an election timeout: only a different leader shows that the election is over.
 */
async function newLeader(cluster: TestCluster, old: number): Promise<number> {
  return waitFor(
    `a leader other than member ${old}`,
    async () => {
      const leader = await cluster.leader();
      return leader !== old ? leader : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 50 },
  );
}

export interface FaultRunOptions {
  /** How long each fault is held, unless the step says otherwise. */
  readonly holdMs: number;
  /** Fault-free time after each heal. */
  readonly settleMs: number;
  readonly now: () => number;
  readonly log: (line: string) => void;
  /** Runs while a fault is held (e.g. extra calls that must end inside it); awaited before healing. */
  readonly whileHeld?: (step: FaultStep) => Promise<void>;
}

/**
 * Runs each fault in turn: inject, hold it, heal, wait until the cluster is healthy, let the workload settle.
 * Returns the windows, measured on `now`.
 */
export async function runFaults(context: FaultContext, steps: readonly FaultStep[], options: FaultRunOptions): Promise<FaultWindow[]> {
  const { cluster } = context;
  const { now, log } = options;
  const windows: FaultWindow[] = [];
  for (const step of steps) {
    // The floor of any stall after a leader fault: no write commits before the others elect a new leader.
    const leaderBefore = step.scope === 'single' && step.hitsLeader ? await cluster.leader() : undefined;
    const start = now();
    log(`fault: ${step.name}`);
    const heal = await step.inject(context);
    const injectedAt = now();
    const electedAfterMs = leaderBefore === undefined ? undefined : (await newLeader(cluster, leaderBefore), now() - start);
    await Promise.all([
      options.whileHeld?.(step),
      // held from the moment the fault was fully in place (killing containers can take seconds)
      new Promise((r) => setTimeout(r, Math.max(0, (step.holdMs ?? options.holdMs) - (now() - injectedAt)))),
    ]);
    log(`heal: ${step.name}`);
    const healStartedAt = now();
    await heal();
    await cluster.waitHealthy(60_000);
    const end = now();
    log(`healthy again after ${((end - healStartedAt) / 1000).toFixed(1)} s`);
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
    await new Promise((r) => setTimeout(r, options.settleMs));
  }
  return windows;
}
