import { setTimeout as sleep } from 'node:timers/promises';
import type { EtcdCluster } from '../../launcher/types.js';
import { now } from './worker-protocol.js';

/**
 * - `kill` / `pause`: injected faults (what the summary counts);
 * - `restart` / `resume`: the repair of an earlier fault;
 * - `elected`: the cluster chose a leader after a fault (observed, not injected).
 */
export type FaultKind = 'kill' | 'restart' | 'pause' | 'resume' | 'elected';

export interface FaultEvent {
  readonly at: number;
  readonly kind: FaultKind;
  readonly member: string;
  readonly note: string;
}

export function isInjected(event: FaultEvent): boolean {
  return event.kind === 'kill' || event.kind === 'pause';
}

/** When each step happens, as a fraction of the run. Kill and pause never overlap: quorum survives. */
const PLAN = { killLeader: 0.2, restart: 0.4, pauseLeader: 0.55, resume: 0.7 } as const;

/**
 * Kills the leader and later restarts it, then pauses (SIGSTOP) the leader of that moment and later
 * resumes it. When `signal` aborts (the run ends early), whatever is still broken is repaired before
 * this resolves, so the workers' final releases find a whole cluster.
 */
export async function runFaultPlan(
  cluster: EtcdCluster,
  startAt: number,
  durationMs: number,
  signal: AbortSignal,
  emit: (event: FaultEvent) => void,
): Promise<void> {
  const at = (fraction: number): Promise<boolean> => sleepUntil(startAt + fraction * durationMs, signal);
  const name = (i: number): string => cluster.members()[i]?.name ?? `m${i}`;
  const event = (kind: FaultKind, i: number, note: string): void => emit({ at: now(), kind, member: name(i), note });
  let killed: number | undefined;
  let paused: number | undefined;
  try {
    if (!(await at(PLAN.killLeader))) return;
    killed = await cluster.leader();
    await cluster.kill(killed);
    const killedAt = now();
    event('kill', killed, `killed leader ${name(killed)} (SIGKILL)`);
    await announceLeader(cluster, killedAt, event);

    if (!(await at(PLAN.restart))) return;
    const restartedAt = now();
    await cluster.restart(killed);
    event('restart', killed, `restarted ${name(killed)}; serving again after ${seconds(now() - restartedAt)}`);
    killed = undefined;

    if (!(await at(PLAN.pauseLeader))) return;
    paused = await cluster.leader();
    await cluster.pause(paused);
    const pausedAt = now();
    event('pause', paused, `paused leader ${name(paused)} (SIGSTOP)`);
    await announceLeader(cluster, pausedAt, event);

    if (!(await at(PLAN.resume))) return;
    await cluster.resume(paused);
    event('resume', paused, `resumed ${name(paused)} (SIGCONT)`);
    paused = undefined;
  } finally {
    if (paused !== undefined) {
      await cluster.resume(paused);
      event('resume', paused, `resumed ${name(paused)} (SIGCONT) before teardown`);
    }
    if (killed !== undefined) {
      await cluster.restart(killed);
      event('restart', killed, `restarted ${name(killed)} before teardown`);
    }
  }
}

async function announceLeader(cluster: EtcdCluster, since: number, event: (kind: FaultKind, i: number, note: string) => void): Promise<void> {
  const leader = await cluster.leader().catch(() => undefined);
  if (leader !== undefined) event('elected', leader, `${cluster.members()[leader]?.name} leads ${seconds(now() - since)} after the fault`);
}

/** false when aborted first. */
async function sleepUntil(at: number, signal: AbortSignal): Promise<boolean> {
  const ms = at - now();
  if (signal.aborted) return false;
  if (ms > 0) await sleep(ms, undefined, { signal }).catch(() => undefined);
  return !signal.aborted;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
