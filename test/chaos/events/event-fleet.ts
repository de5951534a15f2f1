import type { ClientFaults } from '../../../safety-checker/composed/apply.js';
import type { EventRecord } from '../../../safety-checker/events/event-recorder.js';
import type { ProcessFault } from '../../../safety-checker/events/types.js';
import { machineClock } from '../../../safety-checker/recorder.js';
import type { EventVariantName } from '../../pubsub/broken/event-variants.js';
import { waitFor } from '../../support/wait.js';
import { JsonLineWorker } from '../json-line-worker.js';
import { deriveSeed } from '../rng.js';
import { EVENT_WORKER_CONFIG_ENV, type EventWorkerCommand, type EventWorkerConfig, type EventWorkerMessage } from './event-protocol.js';

export interface EventFleetOptions {
  readonly endpoints: readonly string[];
  readonly prefix: string;
  readonly eventPrefix: string;
  readonly seed: number;
  readonly variants: readonly EventVariantName[];
}

const READY_TIMEOUT_MS = 60_000;

/**
 * The event chaos run's worker processes (event-worker.ts), as the test sees them: their records, per variant, on
 * one clock; the faults done to them (a real SIGSTOP/SIGCONT, a SIGKILL) and when, for the checker.
 */
export class EventFleet {
  /** Publish records (every variant's) and each variant's own records, in arrival order. */
  readonly publishes: EventRecord[] = [];
  readonly records = new Map<EventVariantName, EventRecord[]>();
  readonly warnings: string[] = [];
  readonly faults: ProcessFault[] = [];
  /** Processes killed, and when: their subscriptions end there. */
  readonly ends = new Map<string, number>();
  /** Each worker's machine clock less this process's, at its start (the histories compare times across processes). */
  readonly clockOffsets = new Map<string, number>();
  private readonly workers = new Map<string, EventWorker>();
  private readonly paused = new Map<string, number>();
  /** Client-fault slot i of a composed schedule → the worker in it now (a killed worker's replacement takes its slot). */
  private readonly slots: string[] = [];
  private spawned = 0;

  constructor(private readonly options: EventFleetOptions) {
    for (const v of options.variants) this.records.set(v, []);
  }

  /**
   * Starts a worker process and waits until every variant's subscriptions are live; it takes client-fault slot
   * `slot` (default: a new one).
   */
  async start(name: string, options: { schedule?: boolean; slot?: number; readyTimeoutMs?: number } = {}): Promise<void> {
    const config: EventWorkerConfig = { ...this.options, name, schedule: options.schedule ?? false, seed: deriveSeed(this.options.seed, 100 + this.spawned++) };
    const worker = new EventWorker(config, (m) => this.take(m));
    this.workers.set(name, worker);
    this.slots[options.slot ?? this.slots.length] = name;
    const ready = await worker.next('ready', options.readyTimeoutMs ?? READY_TIMEOUT_MS);
    if ('clockOffsetMs' in ready) this.clockOffsets.set(name, ready.clockOffsetMs - (machineClock() - Date.now()));
  }

  /** The worker in client-fault slot `slot`. */
  inSlot(slot: number): string {
    const name = this.slots[slot % this.slots.length];
    if (name === undefined) throw new Error(`no event worker in slot ${slot}`);
    return name;
  }

  /**
   * The fleet as a composed schedule's client target: a suspend is a real SIGSTOP of the whole process, a flood a
   * burst of publishes from many callers, a wall-clock step a step of the worker's `Date` (what EtcdPubSub, its lease
   * clock and its etcd client read as the wall clock).
   */
  get clients(): ClientFaults {
    return {
      processes: this.slots.length,
      suspend: async (p, ms) => {
        const name = this.inSlot(p);
        this.pause(name);
        try {
          await new Promise((r) => setTimeout(r, ms));
        } finally {
          this.resume(name);
        }
      },
      stepClock: async (p, ms) => {
        const name = this.inSlot(p);
        if (!this.ends.has(name)) await this.worker(name).command({ cmd: 'step-clock', ms }, 'stepped', 30_000).catch(() => undefined);
      },
      flood: async (p, ms) => {
        const name = this.inSlot(p);
        if (!this.ends.has(name)) await this.worker(name).command({ cmd: 'flood', ms }, 'flooded', ms + 30_000).catch(() => undefined);
      },
    };
  }

  get names(): string[] {
    return [...this.workers.keys()];
  }

  alive(): string[] {
    return this.names.filter((n) => !this.ends.has(n));
  }

  async publishing(on: boolean): Promise<void> {
    await Promise.all(this.alive().map((n) => this.worker(n).command({ cmd: 'publish', on }, 'publishing', 30_000)));
  }

  /** SIGSTOP: the whole process stops (timers, keepalives, handlers) until `resume`. */
  pause(name: string): void {
    this.worker(name).signal('SIGSTOP');
    this.paused.set(name, machineClock());
  }

  resume(name: string): void {
    this.worker(name).signal('SIGCONT');
    this.faults.push({ process: name, start: this.paused.get(name) ?? machineClock(), end: machineClock() });
    this.paused.delete(name);
  }

  kill(name: string): void {
    const at = machineClock();
    this.worker(name).signal('SIGKILL');
    this.ends.set(name, at);
    this.faults.push({ process: name, start: at });
  }

  /** Closes every live worker's pubsub (publishing first stopped) and waits for the processes to exit. */
  async stop(): Promise<void> {
    await Promise.all(this.alive().map((n) => this.worker(n).exit()));
  }

  /** Kills whatever is left; for cleanup after a failure. */
  killAll(): void {
    for (const w of this.workers.values()) w.signal('SIGKILL');
  }

  describe(): string {
    const offsets = [...this.clockOffsets].map(([name, ms]) => `${name} ${ms.toFixed(1)} ms`).join(', ');
    return [`machine clocks against the runner's: ${offsets}`, ...[...this.workers.entries()].map(([name, w]) => `--- ${name} stderr ---\n${w.stderr.slice(-2000)}`)].join('\n');
  }

  private worker(name: string): EventWorker {
    const worker = this.workers.get(name);
    if (worker === undefined) throw new Error(`no event worker named ${name}`);
    return worker;
  }

  private take(message: EventWorkerMessage): void {
    if ('record' in message) {
      if (message.variant === undefined) this.publishes.push(message.record);
      else this.records.get(message.variant)?.push(message.record);
    } else if ('warning' in message) {
      this.warnings.push(message.warning);
    }
  }
}

class EventWorker {
  private readonly process: JsonLineWorker<EventWorkerCommand, EventWorkerMessage>;

  constructor(config: EventWorkerConfig, onMessage: (m: EventWorkerMessage) => void) {
    this.process = new JsonLineWorker(
      {
        script: 'test/chaos/events/event-worker.ts',
        env: { [EVENT_WORKER_CONFIG_ENV]: JSON.stringify(config) },
        label: 'event worker',
        stderr: 'capture',
        streamed: (m) => 'record' in m || 'warning' in m,
        failure: (m) => ('fatal' in m ? (m as { fatal: string }).fatal : undefined),
      },
      onMessage,
    );
  }

  get stderr(): string {
    return this.process.stderr;
  }

  signal(signal: NodeJS.Signals): void {
    this.process.kill(signal);
  }

  async command(command: EventWorkerCommand, answer: 'publishing' | 'flooded' | 'stepped', timeoutMs: number): Promise<void> {
    this.process.send(command);
    await this.next(answer, timeoutMs);
  }

  async exit(): Promise<void> {
    if (this.process.exited) return;
    this.process.send({ cmd: 'exit' });
    try {
      await waitFor('the event worker to exit', () => this.process.exited, { timeoutMs: 20_000 });
    } finally {
      this.signal('SIGKILL');
    }
  }

  /** The first message of this kind not yet taken; fails at once if the worker exits or reports a fatal error. */
  next<K extends 'ready' | 'publishing' | 'flooded' | 'stepped'>(kind: K, timeoutMs: number): Promise<Extract<EventWorkerMessage, Record<K, unknown>>> {
    return this.process.next(kind, timeoutMs);
  }
}
