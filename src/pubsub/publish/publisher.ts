import { EtcdLeaseInvalidError } from 'etcd3';
import type { ClockMoment } from '../../clock/lease-clock.js';
import type { LeaseLogger } from '../../config/options.js';
import type { EtcdCore } from '../../core/etcd-core.js';
import { LeaseAbortedError } from '../../errors/aborted.js';
import { EtcdUnavailableError } from '../../errors/unavailable.js';
import { LeasedWrites } from '../../leases/leased-writes.js';
import type { LeasePool } from '../../leases/lease-pool.js';
import type { PubSubInstruments } from '../../metrics/instruments.js';
import { errorType } from '../../metrics/error-type.js';
import { POLICY } from '../../policy.js';
import type { CallScope } from '../../transport/call-scope.js';
import type { EventKeys } from '../keys/event-keys.js';
import { clearTopicTxn, decodePublishBatch, publishBatchTxn } from './batch-txn.js';
import { TopicQueue, type QueuedClear, type QueuedEvent } from './topic-queue.js';

/** A deletion under one topic, queued behind its publishes: its call name, and the write, within `scope`. */
interface Deletion {
  operation: 'clearTopic' | 'trimTopic';
  run(scope: CallScope): Promise<void>;
}

/** What the publisher needs to be told about one event; it is already encoded and size-checked. */
interface OutgoingEvent {
  topic: string;
  key: Buffer;
  value: Buffer;
  /** LeaseClock time of the publish call. */
  sent: ClockMoment;
  mode: 'durable' | 'write-behind';
  deadlineMs: number;
  signal?: AbortSignal;
}

/** A queued item and the promise of its caller (or, for write-behind, of `flush`). */
type Pending = (QueuedEvent | QueuedClear) & {
  readonly topic: string;
  /** A queued deletion's own write (clearTopic, trimTopic): sent alone, after the topic's earlier publishes. */
  readonly send?: Deletion;
  readonly deadlineAt: number;
  settled: boolean;
  resolve(): void;
  reject(error: unknown): void;
  readonly done: Promise<void>;
};

interface PublisherDeps {
  core: EtcdCore;
  keys: EventKeys;
  pool: LeasePool;
  retentionMs: number;
  /** Leases of events a consumer group waits for, `backlogMs` long (backlog.ts). */
  backlogPool: LeasePool;
  backlogMs: number;
  writeBehindFlushMs: number;
  instruments: PubSubInstruments;
  logger: LeaseLogger;
}

/**
 * Writes events to etcd through per-topic queues (topic-queue.ts) and the shared group committer: many topics'
 * batches, lease renewals, claims and acks ride one transaction. A batch runs under one call scope with the deadline
 * of its oldest event and is retried as a unit; it rejects every durable event in it when it gives up. Events still
 * queued reject at their own deadline, so no publish waits longer than its `deadlineMs`.
 */
export class Publisher {
  private readonly queues = new Map<string, TopicQueue<Pending>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly pending = new Set<Pending>();
  private readonly writes: LeasedWrites;
  private readonly backlogWrites: LeasedWrites;

  constructor(private readonly deps: PublisherDeps) {
    this.writes = new LeasedWrites(deps.core.committer, deps.pool);
    this.backlogWrites = new LeasedWrites(deps.core.committer, deps.backlogPool);
  }

  /** Resolves when the event is in etcd (durable) or queued (write-behind; failures are logged and counted). */
  publish(event: OutgoingEvent): Promise<void> {
    const entry: QueuedEvent = { kind: 'event', key: event.key, value: event.value, sent: event.sent, mode: event.mode, queuedAt: performance.now() };
    const item = this.enqueue(event.topic, entry, event.deadlineMs);
    if (event.mode === 'write-behind') {
      item.done.catch((error: unknown) => {
        this.deps.instruments.writeBehindFailures.add(1);
        this.deps.logger.warn?.('write-behind events could not be written; subscribers in other processes miss them', { topic: event.topic, error });
      });
      return Promise.resolve();
    }
    const startedAt = performance.now();
    const signal = event.signal;
    if (signal) {
      const onAbort = () => {
        const queue = this.queues.get(event.topic);
        // Still queued: it never leaves. Already in a batch: the batch goes on for the others, this caller stops waiting.
        queue?.remove(item);
        item.reject(new LeaseAbortedError('publish', signal.reason));
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      item.done.finally(() => signal.removeEventListener('abort', onAbort)).catch(() => {});
    }
    return item.done.then(
      () => this.deps.instruments.publishDuration.record((performance.now() - startedAt) / 1000, { result: 'ok' }),
      (error: unknown) => {
        this.deps.instruments.publishDuration.record((performance.now() - startedAt) / 1000, { result: 'error', 'error.type': errorType(error) });
        throw error;
      },
    );
  }

  /** Deletes the topic's retained events and claims after everything published to it before. Never rejects. */
  clear(topic: string, deadlineMs: number): Promise<void> {
    return this.deleteAfterPublishes(topic, deadlineMs, { operation: 'clearTopic', run: (scope) => this.sendClear(topic, scope) });
  }

  /**
   * Runs `deletion` once everything published to the topic before it has been written (or given up), alone, as a
   * clear is. Never rejects: a failure is logged.
   */
  deleteAfterPublishes(topic: string, deadlineMs: number, deletion: Deletion): Promise<void> {
    const item = this.enqueue(topic, { kind: 'clear', queuedAt: performance.now() }, deadlineMs, deletion);
    return item.done.catch((error: unknown) => this.deps.logger.warn?.(`${deletion.operation} failed; retention removes the events later`, { topic, error }));
  }

  /** Waits for everything queued or in flight now, at most `deadlineMs`. Never rejects. */
  async flush(deadlineMs: number): Promise<void> {
    if (this.pending.size === 0) return;
    // Write-behind events held for company leave now instead of at their flush time.
    for (const topic of this.queues.keys()) this.pump(topic, true);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.pending].map((p) => p.done)),
      new Promise((resolve) => (timer = setTimeout(resolve, deadlineMs))),
    ]);
    clearTimeout(timer);
  }

  /** Rejects whatever is still queued (used by close, after flush). */
  abandon(reason: Error): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const item of this.pending) item.reject(reason);
  }

  private enqueue(topic: string, entry: QueuedEvent | QueuedClear, deadlineMs: number, send?: Deletion): Pending {
    const { queuedAt } = entry;
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const item: Pending = {
      ...entry,
      topic,
      send,
      deadlineAt: queuedAt + deadlineMs,
      settled: false,
      done,
      resolve: () => settle(() => resolve()),
      reject: (error) => settle(() => reject(error)),
    } as Pending;
    // A caller's deadline holds even while its event waits behind another batch: the timer is ref'd, as a pending call.
    const timer = setTimeout(() => {
      if (this.queues.get(topic)?.remove(item)) item.reject(new EtcdUnavailableError('publish', 0, performance.now() - queuedAt, undefined));
    }, deadlineMs);
    const settle = (finish: () => void) => {
      if (item.settled) return;
      item.settled = true;
      clearTimeout(timer);
      this.pending.delete(item);
      finish();
    };
    this.pending.add(item);
    let queue = this.queues.get(topic);
    if (!queue) {
      queue = new TopicQueue<Pending>({ ...POLICY.events.batch, writeBehindFlushMs: this.deps.writeBehindFlushMs });
      this.queues.set(topic, queue);
    }
    queue.push(item);
    this.pump(topic);
    return item;
  }

  private pump(topic: string, force = false): void {
    const queue = this.queues.get(topic);
    if (!queue) return;
    const now = performance.now();
    const batch = queue.take(force ? Number.POSITIVE_INFINITY : now);
    if (batch) {
      clearTimeout(this.timers.get(topic));
      this.timers.delete(topic);
      void this.dispatch(topic, queue, batch);
      return;
    }
    if (queue.idle) {
      this.queues.delete(topic);
      return;
    }
    const dueAt = queue.dueAt();
    if (dueAt !== undefined && !this.timers.has(topic)) {
      this.timers.set(
        topic,
        setTimeout(() => {
          this.timers.delete(topic);
          this.pump(topic);
        }, Math.max(0, dueAt - now)),
      );
    }
  }

  private async dispatch(topic: string, queue: TopicQueue<Pending>, batch: Pending[]): Promise<void> {
    const { core } = this.deps;
    // An event whose caller gave up after it left the queue is written all the same (the batch is all-or-nothing);
    // settling it again below does nothing.
    const head = batch[0]!;
    const scope = core.runner.open(head.send?.operation ?? 'publish', {
      deadlineMs: Math.max(1, head.deadlineAt - performance.now()),
      signals: [core.lifetime],
    });
    try {
      if (head.send) await head.send.run(scope);
      else await this.sendEvents(topic, batch.filter((item): item is Pending & QueuedEvent => item.kind === 'event'), scope);
      for (const item of batch) item.resolve();
    } catch (error) {
      for (const item of batch) item.reject(error);
    } finally {
      scope.dispose();
      queue.settle();
      this.pump(topic);
    }
  }

  private async sendEvents(topic: string, events: QueuedEvent[], scope: CallScope): Promise<void> {
    const { core, keys, pool, retentionMs, backlogPool, backlogMs, instruments } = this.deps;
    const keyId = keys.events(topic);
    // Every event must live retentionMs after its own publish call (backlogMs when a group waits for it): the latest
    // call decides the lease.
    const sent = { at: Math.max(...events.map((e) => e.sent.at)), steady: Math.max(...events.map((e) => e.sent.steady)) };
    await core.runner.attempts(scope, async (attempt) => {
      const [lease, backlog] = await Promise.all([
        this.writes.granted(pool.leaseFor(retentionMs, sent), attempt),
        this.backlogWrites.granted(backlogPool.leaseFor(backlogMs, sent), attempt),
      ]);
      const txn = publishBatchTxn(events, lease.id, { prefix: keys.backlogs(topic), lease: backlog.id });
      try {
        return decodePublishBatch(await this.writes.commit(keyId, txn, attempt, lease.id));
      } catch (error) {
        // etcd names no lease when it refuses one: the backlog lease may be the one it no longer knows.
        if (error instanceof EtcdLeaseInvalidError) backlogPool.invalidate(backlog.id);
        throw error;
      }
    });
    instruments.events.add(events.length, { direction: 'published' });
  }

  private async sendClear(topic: string, scope: CallScope): Promise<void> {
    const { core, keys } = this.deps;
    const txn = clearTopicTxn(keys.events(topic), keys.claims(topic));
    await core.runner.attempts(scope, async ({ deadline }) => {
      const sentAt = performance.now();
      const result = await core.client.kv.txn(txn, { deadline });
      core.runner.timeouts.observe(performance.now() - sentAt);
      return result;
    });
  }
}
