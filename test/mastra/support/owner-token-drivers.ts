import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import type { DriverCommand, DriverReport } from '../fixtures/owner-token-protocol.js';

const DRIVER_ENTRY = fileURLToPath(new URL('../fixtures/owner-token-driver.ts', import.meta.url));

/** A command without its id: `call` numbers it. */
type Command = DriverCommand extends infer C ? (C extends DriverCommand ? Omit<C, 'id'> : never) : never;
/** A reply to a command (every report that carries the command's id). */
export type Reply = Extract<DriverReport, { id: number }>;

/** One owner-token driver process, as the parent sees it. */
export class DriverProcess {
  readonly reports: DriverReport[] = [];
  stderr = '';
  readonly exited: Promise<void>;
  readonly ready: Promise<Extract<DriverReport, { type: 'ready' }>>;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, (reply: Reply) => void>();
  private nextId = 1;

  constructor(
    readonly id: string,
    env: Record<string, string>,
  ) {
    this.child = fork(DRIVER_ENTRY, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ...env, WORKER_ID: id },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    let onReady!: (report: Extract<DriverReport, { type: 'ready' }>) => void;
    this.ready = new Promise((resolve) => (onReady = resolve));
    this.child.on('message', (report: DriverReport) => {
      this.reports.push(report);
      if (report.type === 'ready') onReady(report);
      if ('id' in report) {
        this.pending.get(report.id)?.(report);
        this.pending.delete(report.id);
      }
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  /** Sends `command` and resolves with the driver's reply; rejects if none comes within `timeoutMs`. */
  call(command: Command, timeoutMs = 20_000): Promise<Reply> {
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.id}: no reply to ${JSON.stringify(command)} within ${timeoutMs} ms\n${this.describe()}`));
      }, timeoutMs);
      this.pending.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      this.child.send({ ...command, id });
    });
  }

  /** The renewals its interval timers reported, for `runId`. */
  renewals(runId: string): Extract<DriverReport, { type: 'renewed' }>[] {
    return this.reports.filter((r): r is Extract<DriverReport, { type: 'renewed' }> => r.type === 'renewed' && r.runId === runId);
  }

  describe(): string {
    return [`--- ${this.id} reports ---`, ...this.reports.map((r) => JSON.stringify(r)), `--- ${this.id} stderr ---`, this.stderr.slice(-4000)].join('\n');
  }

  /** Asks the driver to close its provider and exit; kills it if it has not exited in `graceMs`. */
  async stop(graceMs = 8000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    try {
      this.child.send({ cmd: 'exit', id: 0 });
    } catch {
      // The IPC channel is already gone; the kill below still applies.
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Starts one driver per id with `env` and waits until each is ready. */
export async function startDrivers(env: Record<string, string>, ...ids: string[]): Promise<DriverProcess[]> {
  const drivers = ids.map((id) => new DriverProcess(id, env));
  await Promise.all(
    drivers.map((d) =>
      Promise.race([
        d.ready,
        d.exited.then(() => {
          throw new Error(`${d.id} exited before it was ready\n${d.describe()}`);
        }),
      ]),
    ),
  );
  return drivers;
}
