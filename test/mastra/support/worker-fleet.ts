import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import type { WorkerCommand, WorkerReport } from '../fixtures/worker-protocol.js';

const WORKER_ENTRY = fileURLToPath(new URL('../fixtures/thread-worker.ts', import.meta.url));

/** The report of one type, as the worker sends it. */
export type ReportOf<T extends WorkerReport['type']> = Extract<WorkerReport, { type: T }>;
type TurnStart = ReportOf<'turn-start'>;

interface Waiter {
  match: (report: WorkerReport) => boolean;
  resolve: (report: WorkerReport) => void;
}

/** One worker process, as the parent sees it. */
export class WorkerProcess {
  readonly reports: WorkerReport[] = [];
  stderr = '';
  /** Wall-clock time the parent sent SIGKILL, if it did. */
  killedAt: number | undefined;
  readonly exited: Promise<void>;
  private readonly child: ChildProcess;
  private readonly waiters = new Set<Waiter>();

  constructor(
    readonly id: string,
    env: Record<string, string>,
    private readonly fleet: WorkerFleet,
  ) {
    this.child = fork(WORKER_ENTRY, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ...env, WORKER_ID: id },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.child.on('message', (report: WorkerReport) => this.receive(report));
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  send(command: WorkerCommand): void {
    this.child.send(command);
  }

  /** The first report, already received or still to come, that `match` accepts. */
  next<T extends WorkerReport['type']>(
    type: T,
    match: (report: ReportOf<T>) => boolean = () => true,
    timeoutMs = 15_000,
  ): Promise<ReportOf<T>> {
    const accepts = (report: WorkerReport): report is ReportOf<T> => report.type === type && match(report as ReportOf<T>);
    const seen = this.reports.find(accepts);
    if (seen) return Promise.resolve(seen);
    return new Promise<ReportOf<T>>((resolve, reject) => {
      const waiter: Waiter = { match: accepts, resolve: (report) => resolve(report as ReportOf<T>) };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`${this.id}: no '${type}' report within ${timeoutMs} ms\n${this.describe()}`));
      }, timeoutMs);
      waiter.resolve = (report) => {
        clearTimeout(timer);
        resolve(report as ReportOf<T>);
      };
      this.waiters.add(waiter);
    });
  }

  /** Sends SIGKILL: no shutdown hook runs, the lease is left to expire. */
  async kill(): Promise<void> {
    if (!this.alive) return;
    this.killedAt = performance.timeOrigin + performance.now();
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Asks the worker to shut down cleanly; kills it if it has not exited in `graceMs`. */
  async stop(graceMs = 3000): Promise<void> {
    if (!this.alive) return;
    try {
      this.send({ cmd: 'exit' });
    } catch {
      // The IPC channel is already gone; the kill below still applies.
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  describe(): string {
    const lines = this.reports.map((r) => JSON.stringify(r));
    return [`--- ${this.id} reports ---`, ...lines, `--- ${this.id} stderr ---`, this.stderr.slice(-4000)].join('\n');
  }

  private receive(report: WorkerReport): void {
    this.reports.push(report);
    this.fleet.timeline.push(report);
    for (const waiter of [...this.waiters]) {
      if (!waiter.match(report)) continue;
      this.waiters.delete(waiter);
      waiter.resolve(report);
    }
    this.fleet.notify();
  }
}

/** The worker processes of one test, and everything they reported, on one time line. */
export class WorkerFleet {
  readonly workers: WorkerProcess[] = [];
  readonly timeline: WorkerReport[] = [];
  private readonly released = new Set<string>();
  private listeners = new Set<() => void>();

  /** `readyTimeoutMs`: how long a worker may take to start (importing Mastra is slow on a busy machine). */
  constructor(
    private readonly env: Record<string, string>,
    private readonly readyTimeoutMs = 30_000,
  ) {}

  /**
   * Starts workers and waits until each is ready. The first is started alone, so it binds the
   * socket and is the pubsub broker; the others then start together and connect to it.
   */
  async start(...ids: string[]): Promise<WorkerProcess[]> {
    const [first, ...rest] = ids;
    const started = first === undefined ? [] : [await this.startOne(first)];
    started.push(...(await Promise.all(rest.map((id) => this.startOne(id)))));
    return started;
  }

  private async startOne(id: string): Promise<WorkerProcess> {
    const worker = new WorkerProcess(id, this.env, this);
    this.workers.push(worker);
    await Promise.race([
      worker.next('ready', () => true, this.readyTimeoutMs),
      worker.exited.then(() => {
        throw new Error(`${id} exited before it was ready\n${worker.describe()}`);
      }),
    ]);
    return worker;
  }

  notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Resolves with the first value `probe` returns that is not `undefined`, re-checked on every report. */
  until<T>(description: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
    const now = probe();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise<T>((resolve, reject) => {
      const listener = () => {
        const value = probe();
        if (value === undefined) return;
        this.listeners.delete(listener);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${description}\n${this.describe()}`));
      }, timeoutMs);
      this.listeners.add(listener);
    });
  }

  reportsOf<T extends WorkerReport['type']>(type: T): ReportOf<T>[] {
    return this.timeline.filter((r): r is ReportOf<T> => r.type === type);
  }

  turns(): TurnStart[] {
    return this.reportsOf('turn-start');
  }

  /** Turns that started and have not been released yet. */
  heldTurns(): TurnStart[] {
    return this.turns().filter((t) => !this.released.has(t.turnId));
  }

  /** Lets a held turn finish and waits until its reply is complete. */
  async release(turn: TurnStart): Promise<void> {
    const worker = this.worker(turn.worker);
    this.released.add(turn.turnId);
    worker.send({ cmd: 'release', turnId: turn.turnId });
    await worker.next('turn-end', (r) => r.turnId === turn.turnId);
  }

  /**
   * Releases turns one at a time, as they start, until every text in `texts` has been seen by
   * the model. Any turn that starts while another is held is recorded; the overlap check
   * afterwards reports it.
   */
  async drain(texts: string[], timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!texts.every((text) => this.turns().some((t) => t.texts.includes(text)))) {
      const turn = await this.until(
        `a model turn carrying ${texts.filter((text) => !this.turns().some((t) => t.texts.includes(text))).join(', ')}`,
        () => this.heldTurns().find((t) => this.worker(t.worker).alive),
        Math.max(1, deadline - Date.now()),
      );
      await this.release(turn);
    }
  }

  /** Releases held turns as they start until one that `wanted` accepts starts; returns it, still held. */
  async releaseUntil(description: string, wanted: (turn: TurnStart) => boolean, timeoutMs = 20_000): Promise<TurnStart> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const turn = await this.until(
        description,
        () => this.heldTurns().find((t) => this.worker(t.worker).alive),
        Math.max(1, deadline - Date.now()),
      );
      if (wanted(turn)) return turn;
      await this.release(turn);
    }
  }

  /** Releases every turn held right now. */
  async releaseAll(): Promise<void> {
    for (const turn of this.heldTurns()) {
      if (this.worker(turn.worker).alive) await this.release(turn);
    }
  }

  /**
   * Model turns as [start, end] intervals on the shared clock. A turn of a killed worker
   * that never ended ends at the kill; one still held ends at +Infinity.
   */
  turnIntervals(): { turnId: string; worker: string; texts: string[]; start: number; end: number }[] {
    const ends = new Map(this.reportsOf('turn-end').map((r) => [r.turnId, r.at]));
    return this.turns()
      .map((t) => ({
        turnId: t.turnId,
        worker: t.worker,
        texts: t.texts,
        start: t.at,
        end: ends.get(t.turnId) ?? this.worker(t.worker).killedAt ?? Number.POSITIVE_INFINITY,
      }))
      .sort((a, b) => a.start - b.start);
  }

  /** Pairs of turns that were in flight at the same time. */
  overlappingTurns(): string[] {
    const intervals = this.turnIntervals();
    const overlaps: string[] = [];
    for (let i = 0; i < intervals.length; i++) {
      for (let j = i + 1; j < intervals.length; j++) {
        const [a, b] = [intervals[i]!, intervals[j]!];
        if (b.start < a.end) overlaps.push(`${a.turnId} [${a.start}, ${a.end}] overlaps ${b.turnId} [${b.start}, ${b.end}]`);
      }
    }
    return overlaps;
  }

  worker(id: string): WorkerProcess {
    const worker = this.workers.find((w) => w.id === id);
    if (!worker) throw new Error(`no worker ${id}`);
    return worker;
  }

  describe(): string {
    return this.workers.map((w) => w.describe()).join('\n');
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }
}
