import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import type { ClusterOptions } from './types.js';
import { killQuietly, onProcessExit } from './exit-cleanup.js';
import { launchCluster } from './launch.js';
import type { ManagedCluster } from './managed-cluster.js';
import { runningMember, unavailableReason, type MemberDriver, type MemberLaunch } from './member-driver.js';

/** Runs each member as a child process of the etcd binary `bin`. */
export function startProcessCluster(options: ClusterOptions, bin: string): Promise<ManagedCluster> {
  const ownProcessGroup = (options.signals ?? 'caller') === 'caller';
  return launchCluster(new ProcessMemberDriver(bin, ownProcessGroup), options);
}

interface RunningMember {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  paused: boolean;
  /** Set when the process ended; a SIGKILL from kill() is recorded as 'killed'. */
  ended: string | undefined;
  forgetOnExit: () => void;
}

class ProcessMemberDriver implements MemberDriver {
  private readonly members = new Map<number, RunningMember>();

  constructor(
    private readonly bin: string,
    /** Members out of the terminal's process group: a Ctrl-C reaches only the caller (see `ClusterOptions.signals`). */
    private readonly ownProcessGroup: boolean,
  ) {}

  async start(member: MemberLaunch): Promise<void> {
    const current = this.members.get(member.index);
    if (current !== undefined && current.ended === undefined) {
      throw new Error(`member ${member.index} is still running; kill it before restarting it`);
    }
    // Appending keeps the log of earlier runs of this member, which is what explains a restart.
    const log = openSync(member.logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(this.bin, member.args, { stdio: ['ignore', log, log], detached: this.ownProcessGroup });
    } finally {
      closeSync(log); // the child has its own copy of the descriptor
    }
    const exited = once(child, 'exit').then(
      ([code, signal]) => {
        running.ended ??= signal === null ? `etcd exited with code ${code}` : `etcd died of ${signal}`;
        running.forgetOnExit();
      },
      // events.once rejects when 'error' comes first: the process never ran.
      (error: Error) => {
        running.ended ??= `etcd failed to run: ${error.message}`;
      },
    );
    const running: RunningMember = { child, exited, paused: false, ended: undefined, forgetOnExit: () => {} };
    this.members.set(member.index, running);
    // 'spawn' or 'error' (e.g. ENOENT when etcd is not installed), whichever comes first.
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) =>
        reject(new Error(`cannot run ${this.bin}: ${error.message}`)),
      );
    });
    const pid = child.pid!;
    // SIGKILL works on stopped processes too, so paused members die as well.
    running.forgetOnExit = onProcessExit(() => killQuietly(pid));
  }

  async kill(index: number): Promise<void> {
    const member = runningMember(this.members, index);
    member.ended = 'killed';
    member.child.kill('SIGKILL');
    await member.exited;
  }

  async pause(index: number): Promise<void> {
    const member = runningMember(this.members, index);
    member.child.kill('SIGSTOP');
    member.paused = true;
  }

  async resume(index: number): Promise<void> {
    const member = runningMember(this.members, index);
    member.child.kill('SIGCONT');
    member.paused = false;
  }

  unavailable(index: number): string | undefined {
    return unavailableReason(this.members.get(index));
  }

  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.members.values()].map(async (member) => {
        if (member.ended !== undefined) return;
        member.ended = 'stopped';
        member.child.kill('SIGKILL');
        await member.exited;
      }),
    );
  }
}
