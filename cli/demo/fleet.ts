import { fork, type ChildProcess } from 'node:child_process';
import { killQuietly, onProcessExit } from '../../launcher/exit-cleanup.js';
import { WORKER_COMMAND, type DemoOp, type ParentMessage, type WorkerConfig, type WorkerMessage } from './worker-protocol.js';

/** One worker process as the demo sees it. */
class WorkerHandle {
  readonly ops: DemoOp[] = [];
  stderr = '';
  failure: string | undefined;
  private readonly done: Promise<void>;
  private readonly ready: Promise<void>;
  private readonly forgetExitHook: () => void;

  constructor(
    readonly id: string,
    private readonly child: ChildProcess,
    onOps: (ops: readonly DemoOp[]) => void,
  ) {
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-4000);
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.ready = new Promise((resolve, reject) => {
      child.on('message', (message: WorkerMessage) => {
        switch (message.type) {
          case 'ready':
            resolve();
            break;
          case 'ops':
            this.ops.push(...message.ops);
            onOps(message.ops);
            break;
          case 'failed':
            this.failure = message.message;
            break;
          case 'done':
            break;
        }
      });
      void exited.then(() => reject(new Error(`worker ${id} exited before it was ready\n${this.stderr}`)));
    });
    // Awaited in WorkerFleet.start; a rejection after that (the worker exits later) is expected.
    this.ready.catch(() => undefined);
    // 'exit' comes after every IPC message has been delivered, so no op is lost by waiting on it.
    this.done = exited;
    this.forgetExitHook = onProcessExit(() => killQuietly(child.pid));
  }

  whenReady(): Promise<void> {
    return this.ready;
  }

  send(message: ParentMessage): void {
    if (this.child.connected) this.child.send(message);
  }

  /** Waits for the worker to release its keys and exit; SIGKILL after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    this.send({ type: 'stop' });
    const timer = setTimeout(() => killQuietly(this.child.pid), graceMs);
    await this.done;
    clearTimeout(timer);
    this.forgetExitHook();
  }
}

/**
 * The demo's worker processes: the CLI forked again with the hidden worker command, so the demo
 * runs the same from `src/` (under tsx, whose loader flags the children inherit) and from the built
 * package. Ops arrive in batches over IPC and are passed to `onOps` for the live view.
 */
export class WorkerFleet {
  readonly workers: WorkerHandle[] = [];

  constructor(
    private readonly cliEntry: string,
    private readonly onOps: (ops: readonly DemoOp[]) => void,
  ) {}

  async start(configs: readonly WorkerConfig[]): Promise<void> {
    // A debugger flag inherited by every child would make them fight over one port.
    const execArgv = process.execArgv.filter((a) => !a.startsWith('--inspect'));
    for (const config of configs) {
      const child = fork(this.cliEntry, [WORKER_COMMAND], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      const worker = new WorkerHandle(config.workerId, child, this.onOps);
      this.workers.push(worker);
      worker.send({ type: 'start', config });
    }
    await Promise.all(this.workers.map((w) => w.whenReady()));
  }

  /** Stops every worker (they release what they hold first) and returns the whole history. */
  async stop(graceMs = 15_000): Promise<DemoOp[]> {
    await Promise.all(this.workers.map((w) => w.stop(graceMs)));
    const failed = this.workers.filter((w) => w.failure !== undefined);
    if (failed.length > 0) {
      throw new Error(failed.map((w) => `worker ${w.id} failed: ${w.failure}`).join('\n'));
    }
    return this.workers.flatMap((w) => w.ops);
  }
}
