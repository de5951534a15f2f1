import type { MemberLayout } from './layout.js';

/** Everything needed to (re)start one member: where it lives and its etcd command line. */
export interface MemberLaunch extends MemberLayout {
  readonly args: readonly string[];
  /** Files the command line names outside the data dir (TLS material): containers mount them read-only. */
  readonly readOnlyFiles?: readonly string[];
}

/**
 * How members are run: child processes or containers. Only process control lives here;
 * addresses, health checks and network faults are shared by both drivers (see managed-cluster.ts).
 */
export interface MemberDriver {
  /** Starts etcd for the member; resolves once it runs, not once it serves. */
  start(member: MemberLaunch): Promise<void>;
  /** Hard kill; resolves once the member is gone and its ports can be bound again. */
  kill(index: number): Promise<void>;
  pause(index: number): Promise<void>;
  resume(index: number): Promise<void>;
  /**
   * Why the member cannot serve right now (killed, paused, exited), or undefined when it is
   * running. Lets health waits fail at once instead of running into their timeout.
   */
  unavailable(index: number): string | undefined;
  /** Kills every member; safe to call more than once. */
  stopAll(): Promise<void>;
}

/** What both drivers track of a member they started: why it stopped, if it did, and whether it is paused. */
export interface MemberRunState {
  ended: string | undefined;
  paused: boolean;
}

/** The shared answer to `MemberDriver.unavailable`: why the member cannot serve, or undefined when it can. */
export function unavailableReason(member: MemberRunState | undefined): string | undefined {
  if (member === undefined) return 'never started';
  if (member.ended !== undefined) return member.ended;
  return member.paused ? 'paused' : undefined;
}

/** The member a driver may signal: started and not ended (a paused one counts). Throws, saying why, otherwise. */
export function runningMember<M extends MemberRunState>(members: ReadonlyMap<number, M>, index: number): M {
  const member = members.get(index);
  if (member === undefined || member.ended !== undefined) {
    throw new Error(`member ${index} is not running (${unavailableReason(member)})`);
  }
  return member;
}
