import { randomUUID } from 'node:crypto';
import type { Event, EventCallback } from '@mastra/core/events';
import { metrics, type MeterProvider, type ObservableCallback } from '@opentelemetry/api';
import type { LeaseLogger } from '../config/options.js';
import type { EtcdCore } from '../core/etcd-core.js';
import { ProviderClosedError } from '../errors/closed.js';
import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import { checkText } from '../keys/key-codec.js';
import { LeaseIdSpace } from '../leases/lease-id.js';
import type { LeasePool } from '../leases/lease-pool.js';
import { createPubSubInstruments, type PubSubInstruments } from '../metrics/instruments.js';
import { leaseMeter } from '../metrics/meter-scope.js';
import type { CallScope } from '../transport/call-scope.js';
import { checkEventSize, checkPublishedEvent, decodeEvent, encodeEvent, stampEvent } from './codec/envelope.js';
import { LocalDelivery } from './deliver/local-delivery.js';
import { GroupConsumer } from './groups/group-consumer.js';
import { Session } from './groups/session.js';
import { EventIds } from './keys/event-id.js';
import { EventKeys } from './keys/event-keys.js';
import { LocalBus } from './local/local-bus.js';
import type { PublishedEvent } from './options.js';
import { POLICY } from '../policy.js';
import { Publisher } from './publish/publisher.js';
import type { ResolvedEventOptions } from './resolve-options.js';
import { CompactionCheck } from './retention/compaction-check.js';
import { FeedMember } from './watch/feed-member.js';
import { byCreationThenKey, readPrefix } from './watch/range-read.js';
import { TopicFeed } from './watch/topic-feed.js';
import { checkTrimSelection, isTrimmed, trimTxns, type TrimSelection } from './trim/run-trim.js';
import { WatchStream, type WatchStreamTuning } from './watch/watch-stream.js';

/** Per-call options of the bus's async methods. */
export interface BusCallOptions {
  /** Overall deadline of the call. @default the core's `deadlineMs` */
  deadlineMs?: number;
  signal?: AbortSignal;
}

export interface BusPublishOptions extends BusCallOptions {
  /** Deliver inside this process only; never written to etcd. */
  localOnly?: boolean;
}

interface BusSubscribeOptions extends BusCallOptions {
  group?: string;
  startFrom?: 'earliest' | 'latest';
}

/** The backlog pool's bucket: at least the retention bucket, and about 60 leases over the backlog bound. */
function backlogBucketMs(options: ResolvedEventOptions): number {
  return Math.max(options.retentionBucketMs, Math.round(options.groupBacklogMs / 60));
}

/** Seams inside the package, not options: for the test suite. */
export interface EventBusInternals {
  /** The watch stream's frame-limit defences. @default both on */
  watch?: Partial<WatchStreamTuning>;
  /** Retained events a topic feed keeps in memory (0: none, every later `'earliest'` subscriber reads). @default POLICY.events.retainedWindowBytes */
  retainedWindowBytes?: number;
}

interface GroupEntry {
  consumer: GroupConsumer;
  starting: Promise<void>;
}

/** One (topic, callback) pair's subscription in this process. */
interface Subscription {
  /** Settles as its subscribe does: live, or failed. */
  started: Promise<void>;
  /** Nothing more reaches the callback, from this moment (the first step of unsubscribe). */
  halt(): void;
  /** Undoes what the subscribe set up, once it has settled. Never rejects. */
  end(): Promise<void>;
}

/**
 * The etcd event bus: Mastra's event semantics on etcd, without Mastra at run time (only its types) — publish, fan-out
 * and grouped subscriptions across processes, replay of the retained window, clearTopic, history. `EventBusPubSub`
 * (src/mastra) adapts it to Mastra's `PubSub` class. It shares an `EtcdCore` (client, runner, group committer, clock) with the lease provider,
 * so one consensus round carries lease renewals and events together.
 */
export class EtcdEventBus {
  readonly keys: EventKeys;
  private readonly ids = new EventIds();
  private readonly logger: LeaseLogger;
  private readonly instruments: PubSubInstruments;
  private readonly retention: LeasePool;
  private readonly backlog: LeasePool;
  private readonly publisher: Publisher;
  private readonly stream: WatchStream;
  private readonly delivery: LocalDelivery;
  private readonly local: LocalBus;
  private readonly compaction: CompactionCheck;
  private readonly observeCompaction: ObservableCallback;
  private session: Session | undefined;
  /** Every (topic, callback) subscribed, each once: a second subscribe of the pair is the first one. */
  private readonly subscriptions = new Map<string, Map<EventCallback, Subscription>>();
  /** One feed per topic with fan-out subscribers: one watch and one replay read for all of them. */
  private readonly feeds = new Map<string, TopicFeed>();
  private readonly groups = new Map<string, GroupEntry>();
  private readonly closeController = new AbortController();
  private memberCount = 0;
  private closing: Promise<void> | undefined;
  private readonly retainedWindowBytes: number;

  constructor(
    private readonly core: EtcdCore,
    private readonly options: ResolvedEventOptions,
    meterProvider: MeterProvider = metrics,
    internals: EventBusInternals = {},
  ) {
    this.logger = core.options.logger;
    this.keys = new EventKeys(options.eventPrefix);
    this.retainedWindowBytes = internals.retainedWindowBytes ?? POLICY.events.retainedWindowBytes;
    this.instruments = createPubSubInstruments(leaseMeter(meterProvider));
    const { client, runner, clock } = core;
    // A pool of its own, with its own id tag: retention leases are never confused with the provider's lease ids.
    this.retention = core.leasePool(options.retentionBucketMs, new LeaseIdSpace(clock.wallOrigin), 'retention lease');
    // Work a consumer group waits for lives on leases of its own, as long as the backlog bound: bucketed wider, so a
    // process holds about as many of them as of retention leases.
    this.backlog = core.leasePool(backlogBucketMs(options), new LeaseIdSpace(clock.wallOrigin), 'backlog lease');
    this.publisher = new Publisher({
      core,
      keys: this.keys,
      pool: this.retention,
      retentionMs: options.retentionMs,
      backlogPool: this.backlog,
      backlogMs: options.groupBacklogMs,
      writeBehindFlushMs: options.writeBehindFlushMs,
      instruments: this.instruments,
      logger: this.logger,
    });
    const probeKey = Buffer.from(options.eventPrefix, 'utf8');
    this.stream = new WatchStream(client, {
      readRevision: async () =>
        (await runner.read('watchCheck', core.budget(), ({ deadline }) => client.kv.range({ key: probeKey, count_only: true }, { deadline }))).header.revision,
      checkMs: options.watchCheckMs,
      logger: this.logger,
      onResume: (reason) => this.instruments.watchResumes.add(1, { reason }),
      onOversize: (error) =>
        this.logger.warn?.("an event watch's catch-up came back over the etcd client's gRPC receive limit; its subscriptions re-read what they missed", {
          error,
        }),
      ...internals.watch,
    });
    this.delivery = new LocalDelivery({
      maxDeliveryAttempts: options.maxDeliveryAttempts,
      redeliveryDelayMs: options.redeliveryDelayMs,
      inFlightTimeoutMs: options.inFlightTimeoutMs,
      logger: this.logger,
      onDelivered: () => this.instruments.events.add(1, { direction: 'delivered' }),
      onRedelivered: (reason) => this.instruments.redeliveries.add(1, { reason }),
      onDropped: () => this.instruments.dropped.add(1, { reason: 'max-attempts' }),
    });
    this.local = new LocalBus(this.delivery);
    this.compaction = new CompactionCheck(core, probeKey, this.logger);
    this.observeCompaction = (result) => result.observe(this.compaction.compactionMissing ? 1 : 0);
    this.instruments.compactionMissing.addCallback(this.observeCompaction);
    this.compaction.start(options.compactionCheckMs);
    for (const notice of options.notices ?? []) this.logger.warn?.(notice);
  }

  /** This process's publisher id (the first part of every event id it writes). */
  get publisherId(): string {
    return this.ids.publisher;
  }

  /**
   * Publishes `event` to `topic`. Durable (default): resolves once etcd committed it. Rejects with `EventTooLargeError`
   * above `maxEventBytes` (nothing written), `EtcdUnavailableError` after `deadlineMs`, argument errors naming the
   * parameter, `ProviderClosedError` ("the EtcdPubSub is closed") after close.
   */
  async publish(topic: string, event: PublishedEvent, options: BusPublishOptions = {}): Promise<void> {
    this.assertOpen('publish');
    checkText('topic', topic);
    checkPublishedEvent(event);
    const mode = options.localOnly === true ? 'local' : this.options.publishMode(topic, event);
    if (mode !== 'durable' && mode !== 'write-behind' && mode !== 'local') {
      throw new LeaseArgumentRangeError('options.publishMode', `returned ${String(mode)}; expected 'durable', 'write-behind' or 'local'`);
    }
    const stamped = stampEvent(event, randomUUID(), new Date());
    if (mode === 'local') return this.local.publish(topic, stamped);
    const key = this.keys.event(topic, this.ids.next());
    const value = encodeEvent(stamped);
    checkEventSize(topic, key, value, this.options.maxEventBytes);
    const deadlineMs = this.core.deadlineOf(options);
    return this.publisher.publish({ topic, key, value, sent: this.core.clock.moment(), mode, deadlineMs, signal: options.signal });
  }

  /**
   * Subscribes `cb`. Without `group`, it gets every event of the topic from every process (after the retained ones
   * with `startFrom: 'earliest'`, the default); with `group`, each event goes to one live member of the group across
   * processes. Resolves once the subscription is live: an event published after that reaches it. Idempotent per
   * (topic, callback), as Mastra's Redis backend: while `cb` is subscribed to `topic`, subscribing it again, with any
   * options, is the same subscription (it resolves when that one is live), and one `unsubscribe` ends it.
   */
  async subscribe(topic: string, cb: EventCallback, options: BusSubscribeOptions = {}): Promise<void> {
    this.assertOpen('subscribe');
    checkText('topic', topic);
    if (typeof cb !== 'function') throw new LeaseArgumentTypeError('cb', `must be a function (event, ack, nack) => void, got ${typeof cb}`);
    const { group } = options;
    if (group !== undefined) checkText('options.group', group);
    const startFrom = options.startFrom ?? 'earliest';
    if (startFrom !== 'earliest' && startFrom !== 'latest') throw new LeaseArgumentRangeError('options.startFrom', `must be 'earliest' or 'latest', got ${String(startFrom)}`);
    const scope = this.core.runner.open('subscribe', this.core.budget(this.core.deadlineOf(options), options.signal));
    try {
      const existing = this.subscriptions.get(topic)?.get(cb);
      if (existing) return await scope.race(existing.started);
      const subscription = group === undefined ? this.subscribeFanout(topic, cb, startFrom, scope) : this.subscribeGroup(topic, group, cb, startFrom, scope);
      const byCallback = this.subscriptions.get(topic) ?? new Map<EventCallback, Subscription>();
      this.subscriptions.set(topic, byCallback);
      byCallback.set(cb, subscription);
      // Registered before anything is awaited: a localOnly event published while this subscribe runs reaches it.
      this.local.add(topic, cb, group);
      try {
        await subscription.started;
      } catch (error) {
        // Undone as by an unsubscribe: a callback added to a group member that went on starting gets nothing.
        if (this.forget(topic, cb, subscription)) {
          this.local.remove(topic, cb);
          subscription.halt();
          void subscription.end();
        }
        throw error;
      }
    } catch (error) {
      throw scope.signal.aborted ? scope.giveUpError() : error;
    } finally {
      scope.dispose();
    }
  }

  /**
   * Stops delivery to `cb` on `topic` at once. A subscribe of the pair still in flight is waited for, then undone: a
   * group member that an unsubscribe overtook never stays behind registered. Never rejects.
   */
  async unsubscribe(topic: string, cb: EventCallback): Promise<void> {
    const subscription = this.subscriptions.get(topic)?.get(cb);
    if (!subscription) return;
    this.forget(topic, cb, subscription);
    this.local.remove(topic, cb);
    subscription.halt();
    await subscription.started.catch(() => {});
    await subscription.end();
  }

  /** Waits for pending publishes (write-behind included) and ack/nack writes, at most `deadlineMs`. Never rejects. */
  async flush(options: BusCallOptions = {}): Promise<void> {
    const deadlineMs = this.core.deadlineOf(options);
    await Promise.allSettled([this.publisher.flush(deadlineMs), ...[...this.groups.values()].map((g) => g.consumer.flush(deadlineMs))]);
  }

  /** Deletes the topic's retained events and group claims, after what this process published to it before. Never rejects. */
  async clearTopic(topic: string, options: BusCallOptions = {}): Promise<void> {
    if (this.closeController.signal.aborted) return;
    try {
      checkText('topic', topic);
    } catch (error) {
      this.logger.warn?.('clearTopic: invalid topic; nothing cleared', { error });
      return;
    }
    await this.publisher.clear(topic, this.core.deadlineOf(options));
  }

  /**
   * Deletes one run's retained events of `topic` (`runId`); with `producedBefore`, only its unpinned events produced
   * at or before it (run-trim.ts has the rule, Mastra's). Events of other runs stay. Runs after what this process
   * published to the topic before, as `clearTopic` does. Never rejects: a bad argument or a failure is logged.
   */
  async trimTopic(topic: string, selection: TrimSelection, options: BusCallOptions = {}): Promise<void> {
    if (this.closeController.signal.aborted) return;
    try {
      checkText('topic', topic);
      checkTrimSelection(selection);
    } catch (error) {
      this.logger.warn?.('trimTopic: invalid argument; nothing trimmed', { error });
      return;
    }
    const { runId, producedBefore } = selection;
    const wanted: TrimSelection = producedBefore === undefined ? { runId } : { runId, producedBefore };
    await this.publisher.deleteAfterPublishes(topic, this.core.deadlineOf(options), {
      operation: 'trimTopic',
      run: async (scope) => {
        const { client, runner } = this.core;
        const { kvs } = await readPrefix(client, runner, scope, this.keys.events(topic), undefined, Number.POSITIVE_INFINITY);
        const doomed = kvs.filter((kv) => {
          const event = decodeEvent(kv.value);
          return event !== undefined && isTrimmed(event, wanted);
        });
        for (const txn of trimTxns(doomed.map((kv) => kv.key), POLICY.events.trimKeysPerTxn)) {
          await runner.attempts(scope, ({ deadline }) => client.kv.txn(txn, { deadline }));
        }
      },
    });
  }

  /**
   * The retained events of `topic` in topic order, from position `offset`. Positions count the *currently retained*
   * window, which moves as events expire: they are not stable offsets.
   */
  async getHistory(topic: string, offset = 0, options: BusCallOptions = {}): Promise<Event[]> {
    this.assertOpen('getHistory');
    checkText('topic', topic);
    if (!Number.isInteger(offset) || offset < 0) throw new LeaseArgumentRangeError('offset', `must be a whole number ≥ 0, got ${offset}`);
    const scope = this.core.runner.open('getHistory', this.core.budget(this.core.deadlineOf(options), options.signal));
    try {
      const { kvs } = await readPrefix(this.core.client, this.core.runner, scope, this.keys.events(topic), undefined, this.options.maxReplayBytes);
      return [...kvs].sort(byCreationThenKey).flatMap((kv) => decodeEvent(kv.value) ?? []).slice(offset);
    } finally {
      scope.dispose();
    }
  }

  /**
   * Stops accepting calls, flushes pending publishes and acks (at most `deadlineMs`), revokes the group session (every
   * member key goes in one write) and ends the watch stream. Idempotent. The core is its creator's to close.
   */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    const deadlineMs = this.core.options.deadlineMs;
    this.closeController.abort(new ProviderClosedError('subscribe', 'EtcdPubSub'));
    await this.flush({ deadlineMs });
    this.publisher.abandon(new ProviderClosedError('publish', 'EtcdPubSub'));
    for (const entry of this.groups.values()) entry.consumer.stop();
    this.groups.clear();
    for (const feed of this.feeds.values()) feed.stop();
    this.feeds.clear();
    this.subscriptions.clear();
    this.delivery.stop();
    await this.session?.close(deadlineMs);
    this.stream.close();
    this.compaction.stop();
    this.instruments.compactionMissing.removeCallback(this.observeCompaction);
    this.retention.close();
    this.backlog.close();
  }

  /** Joins the topic's feed (created with its first member): its watch and replay are shared by every member. */
  private subscribeFanout(topic: string, cb: EventCallback, startFrom: 'earliest' | 'latest', scope: CallScope): Subscription {
    const member: FeedMember = new FeedMember(startFrom, (value) => {
      const event = decodeEvent(value);
      if (!event) return void this.logger.warn?.('an event could not be decoded; skipped', { topic });
      this.delivery.deliver(() => (member.active ? cb : undefined), event);
    });
    let feed = this.feeds.get(topic);
    if (!feed) {
      feed = new TopicFeed({
        core: this.core,
        stream: this.stream,
        prefix: this.keys.events(topic),
        topic,
        maxReplayBytes: this.options.maxReplayBytes,
        windowBytes: this.retainedWindowBytes,
        logger: this.logger,
        instruments: this.instruments,
        onIdle: (idle) => {
          if (this.feeds.get(topic) === idle) this.feeds.delete(topic);
        },
      });
      this.feeds.set(topic, feed);
    }
    const joined = feed;
    return { started: joined.join(member, scope), halt: () => joined.leave(member), end: async () => {} };
  }

  /**
   * Adds `cb` to this process's member of the group, joining the group first if this is its first callback here.
   * Its end leaves the group once no callback is left (one may have come meanwhile: the member then stays).
   */
  private subscribeGroup(topic: string, group: string, cb: EventCallback, startFrom: 'earliest' | 'latest', scope: CallScope): Subscription {
    const id = `${topic}\u0000${group}`;
    let entry = this.groups.get(id);
    let started: Promise<void>;
    if (entry) {
      entry.consumer.add(cb);
      started = scope.race(entry.starting);
    } else {
      this.session ??= new Session(this.core, this.options.groupMemberTtlMs, this.logger);
      const consumer = new GroupConsumer({
        core: this.core,
        stream: this.stream,
        session: this.session,
        keys: this.keys,
        topic,
        group,
        me: `${this.ids.publisher}-${++this.memberCount}`,
        startFrom,
        options: this.options,
        backlogPool: this.backlog,
        retentionPool: this.retention,
        logger: this.logger,
        instruments: this.instruments,
        decode: decodeEvent,
      });
      const starting = consumer.start(cb, scope);
      entry = { consumer, starting };
      this.groups.set(id, entry);
      started = starting.catch((error: unknown) => {
        if (this.groups.get(id)?.consumer === consumer) this.groups.delete(id);
        throw error;
      });
    }
    const { consumer } = entry;
    return {
      started,
      halt: () => void consumer.remove(cb),
      end: async () => {
        if (consumer.size > 0) return;
        if (this.groups.get(id)?.consumer === consumer) this.groups.delete(id);
        await consumer.leave(this.core.options.deadlineMs).catch(() => {});
      },
    };
  }

  /** Drops the pair's registration if it is still `subscription`; true if it was. */
  private forget(topic: string, cb: EventCallback, subscription: Subscription): boolean {
    const byCallback = this.subscriptions.get(topic);
    if (byCallback?.get(cb) !== subscription) return false;
    byCallback.delete(cb);
    if (byCallback.size === 0) this.subscriptions.delete(topic);
    return true;
  }

  private assertOpen(operation: string): void {
    if (this.closeController.signal.aborted) throw new ProviderClosedError(operation, 'EtcdPubSub');
  }
}
