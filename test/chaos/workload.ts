import type { RecordedOp } from '../../safety-checker/types.js';
import { waitFor } from '../support/wait.js';
import { JsonLineWorker } from './json-line-worker.js';
import { deriveSeed } from './rng.js';
import type { VariantName } from './variants.js';
import { WORKER_CONFIG_ENV, type WorkerCommand, type WorkerConfig, type WorkerMessage } from './workload-protocol.js';

export interface WorkloadOptions {
  readonly endpoints: readonly string[];
  readonly prefix: string;
  /** Client processes, each with its own provider and connections. */
  readonly processes: number;
  /** Mastra-like holders per process (holder.ts). */
  readonly holdersPerProcess: number;
  readonly keys: readonly string[];
  readonly ttlMs: number;
  readonly seed: number;
  /** The provider every process runs. @default 'real' */
  readonly variant?: VariantName;
}

export interface RunningWorkload {
  /** Every call recorded so far, from every process, on the machine clock. */
  readonly history: RecordedOp[];
  readonly processes: number;
  /** Emulates a suspend of worker `index` for `ms`; resolves with when it stopped and resumed. */
  suspend(index: number, ms: number): Promise<{ from: number; to: number }>;
  /** Steps worker `index`'s wall clock by `ms` (negative: back); resolves once it has. */
  stepClock(index: number, ms: number): Promise<void>;
  /** Worker `index` floods its provider with fresh work for `ms`; resolves with what the flood sent. */
  flood(index: number, ms: number): Promise<{ calls: number; errors: number }>;
  /** Stops every holder, waits until every call in flight has returned, and resolves with the whole history. */
  stop(): Promise<RecordedOp[]>;
}

const READY_TIMEOUT_MS = 60_000;
/** A worker waits for its calls in flight (each ends within its 5 s deadline) and closes its provider. */
const STOP_TIMEOUT_MS = 30_000;

/**
 * Client processes contending for a few keys (workload-process.ts), each its own provider and its own etcd
 * connections, as a fleet of Mastra workers is. Their calls land in one history on one clock.
 */
export async function startWorkload(options: WorkloadOptions): Promise<RunningWorkload> {
  const history: RecordedOp[] = [];
  const workers = Array.from({ length: options.processes }, (_, i) => new Worker(i, options, history));
  try {
    await Promise.all(workers.map((w) => w.ready()));
  } catch (error) {
    for (const w of workers) w.kill();
    throw error;
  }
  let stopping: Promise<RecordedOp[]> | undefined;
  return {
    history,
    processes: workers.length,
    suspend: (index, ms) => workers[index]!.suspend(ms),
    stepClock: (index, ms) => workers[index]!.stepClock(ms),
    flood: (index, ms) => workers[index]!.flood(ms),
    stop() {
      stopping ??= Promise.all(workers.map((w) => w.stop())).then(() => history);
      return stopping;
    },
  };
}

class Worker {
  private readonly process: JsonLineWorker<WorkerCommand, WorkerMessage>;

  constructor(index: number, options: WorkloadOptions, history: RecordedOp[]) {
    const config: WorkerConfig = {
      name: `p${index}`,
      endpoints: options.endpoints,
      prefix: options.prefix,
      keys: options.keys,
      ttlMs: options.ttlMs,
      holders: options.holdersPerProcess,
      seed: deriveSeed(options.seed, index),
      variant: options.variant ?? 'real',
    };
    this.process = new JsonLineWorker(
      {
        script: 'test/chaos/workload-process.ts',
        env: { [WORKER_CONFIG_ENV]: JSON.stringify(config) },
        label: 'worker',
        stderr: 'inherit',
        streamed: (m) => 'op' in m,
      },
      (m) => history.push((m as { op: RecordedOp }).op),
    );
  }

  async ready(): Promise<void> {
    await this.process.next('ready', READY_TIMEOUT_MS);
  }

  async suspend(ms: number): Promise<{ from: number; to: number }> {
    this.process.send({ cmd: 'suspend', ms });
    const message = await this.process.next('suspended', ms + 10_000);
    return message.suspended;
  }

  async stepClock(ms: number): Promise<void> {
    this.process.send({ cmd: 'step-clock', ms });
    await this.process.next('stepped', 10_000);
  }

  async flood(ms: number): Promise<{ calls: number; errors: number }> {
    this.process.send({ cmd: 'flood', ms });
    // The flood's calls in flight settle within their deadline once it is over.
    return (await this.process.next('flooded', ms + 30_000)).flooded;
  }

  async stop(): Promise<void> {
    if (this.process.exited) return;
    this.process.send({ cmd: 'stop' });
    try {
      await this.process.next('stopped', STOP_TIMEOUT_MS);
      await waitFor('the worker to exit', () => this.process.exited, { timeoutMs: 5_000 });
    } finally {
      this.kill();
    }
  }

  kill(): void {
    this.process.kill();
  }
}
