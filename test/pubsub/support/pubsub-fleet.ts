import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { waitFor } from '../../support/wait.js';
import type { PubSubCommand, PubSubReport } from '../fixtures/pubsub-protocol.js';

const ENTRY = fileURLToPath(new URL('../fixtures/pubsub-worker.ts', import.meta.url));

type Delivered = Extract<PubSubReport, { type: 'delivered' }>;
type Published = Extract<PubSubReport, { type: 'published' }>;
type Acked = Extract<PubSubReport, { type: 'acked' }>;

/** One `pubsub-worker` process as the test sees it: commands in, reports collected. */
export class PubSubProcess {
  readonly reports: PubSubReport[] = [];
  stderr = '';
  readonly exited: Promise<void>;
  private readonly child: ChildProcess;

  constructor(
    readonly id: string,
    env: Record<string, string>,
  ) {
    this.child = fork(ENTRY, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ...env, WORKER_ID: id },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.child.on('message', (report: PubSubReport) => this.reports.push(report));
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends a command and waits for the report that answers it. */
  async run<T extends PubSubReport['type']>(command: PubSubCommand, answer: T, timeoutMs = 30_000): Promise<Extract<PubSubReport, { type: T }>> {
    const before = this.reports.length;
    this.child.send(command);
    return this.await(`${this.id}: '${answer}' after ${command.cmd}`, (r) => r.type === answer, before, timeoutMs) as Promise<Extract<PubSubReport, { type: T }>>;
  }

  subscribe(topic: string, options: Omit<Extract<PubSubCommand, { cmd: 'subscribe' }>, 'cmd' | 'topic'> = {}) {
    return this.run({ cmd: 'subscribe', topic, ...options }, 'subscribed');
  }

  unsubscribe(topic: string) {
    return this.run({ cmd: 'unsubscribe', topic }, 'unsubscribed');
  }

  publish(topic: string, count: number, options: { concurrency?: number; payloadBytes?: number } = {}): Promise<Published> {
    return this.run({ cmd: 'publish', topic, count, ...options }, 'published', 120_000);
  }

  /** Starts publishing without waiting for the answer (see `published`). */
  startPublishing(topic: string, count: number, options: { concurrency?: number } = {}): void {
    this.child.send({ cmd: 'publish', topic, count, ...options } satisfies PubSubCommand);
  }

  published(topic: string, timeoutMs = 120_000): Promise<Published> {
    return this.await(`${this.id}: 'published' on ${topic}`, (r) => r.type === 'published' && r.topic === topic, 0, timeoutMs) as Promise<Published>;
  }

  deliveries(topic: string): Delivered[] {
    return this.reports.filter((r): r is Delivered => r.type === 'delivered' && r.topic === topic);
  }

  acks(topic: string): Acked[] {
    return this.reports.filter((r): r is Acked => r.type === 'acked' && r.topic === topic);
  }

  async kill(): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    try {
      this.child.send({ cmd: 'exit' } satisfies PubSubCommand);
    } catch {
      // IPC already gone; the kill below applies.
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 8000);
    await this.exited;
    clearTimeout(timer);
  }

  describe(): string {
    const fatal = this.reports.filter((r) => r.type === 'fatal' || r.type === 'published').map((r) => JSON.stringify(r));
    return [`--- ${this.id}: ${this.reports.length} reports ---`, ...fatal, `--- ${this.id} stderr ---`, this.stderr.slice(-3000)].join('\n');
  }

  private await(what: string, match: (r: PubSubReport) => boolean, from: number, timeoutMs: number): Promise<PubSubReport> {
    return waitFor(
      what,
      () => {
        const fatal = this.reports.find((r) => r.type === 'fatal');
        if (fatal) throw new Error(`${this.id} failed: ${(fatal as { error: string }).error}`);
        if (!this.alive) throw new Error(`${this.id} exited\n${this.describe()}`);
        return this.reports.slice(from).find(match);
      },
      { timeoutMs, intervalMs: 10 },
    );
  }
}

/** Starts `ids` as worker processes with `env` and waits until each is ready. */
export async function startProcesses(env: Record<string, string>, ...ids: string[]): Promise<PubSubProcess[]> {
  const processes = ids.map((id) => new PubSubProcess(id, env));
  try {
    await Promise.all(processes.map((p) => waitFor(`${p.id} ready`, () => { if (!p.alive) throw new Error(`${p.id} exited\n${p.describe()}`); return p.reports.some((r) => r.type === 'ready'); }, { timeoutMs: 30_000 })));
  } catch (error) {
    await Promise.all(processes.map((p) => p.kill()));
    throw error;
  }
  return processes;
}
