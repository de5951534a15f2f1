import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { killQuietly, onExit } from './exit-hooks.js';

export type MemberState = 'running' | 'paused' | 'killed';

/** One etcd process of the local demo cluster; restartable with the same flags and data dir. */
export class EtcdMember {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private forgetExitHook: () => void = () => {};
  state: MemberState = 'killed';

  constructor(
    readonly index: number,
    readonly name: string,
    readonly clientUrl: string,
    private readonly bin: string,
    private readonly args: readonly string[],
    private readonly logFile: string,
  ) {}

  get pid(): number | undefined {
    return this.state === 'killed' ? undefined : this.child?.pid;
  }

  async start(): Promise<void> {
    if (this.state !== 'killed') throw new Error(`${this.name} is already running`);
    // Appending keeps the log of the run before a kill, which is what explains a restart.
    const log = openSync(this.logFile, 'a');
    let child: ChildProcess;
    try {
      // Own process group: a Ctrl-C in the terminal must reach the demo (which then tears down in
      // order), not kill the members underneath the workers' final releases.
      child = spawn(this.bin, this.args, { stdio: ['ignore', log, log], detached: true });
    } finally {
      closeSync(log);
    }
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => reject(new Error(`cannot run ${this.bin} (set ETCD_BIN, or ETCD_ENDPOINTS to use a running cluster): ${error.message}`)));
    });
    this.child = child;
    this.state = 'running';
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const pid = child.pid;
    this.forgetExitHook = onExit(() => killQuietly(pid));
  }

  /** SIGKILL; resolves once the process is gone (its ports are free again). Works on a paused member too. */
  async kill(): Promise<void> {
    if (this.state === 'killed') return;
    this.state = 'killed';
    this.child?.kill('SIGKILL');
    await this.exited;
    this.forgetExitHook();
  }

  pause(): void {
    if (this.state !== 'running') throw new Error(`${this.name} is ${this.state}, cannot pause it`);
    this.child?.kill('SIGSTOP');
    this.state = 'paused';
  }

  resume(): void {
    if (this.state !== 'paused') return;
    this.child?.kill('SIGCONT');
    this.state = 'running';
  }

  /** For exit hooks, which cannot wait. */
  killSync(): void {
    if (this.state !== 'killed') killQuietly(this.child?.pid);
    this.state = 'killed';
  }
}
