import type { IEvent } from 'etcd3';
import type { LeaseLogger } from '../../config/options.js';
import type { EtcdCore } from '../../core/etcd-core.js';
import type { PubSubInstruments } from '../../metrics/instruments.js';
import type { KeyValue } from '../../operations/etcd-txn.js';
import type { CallScope } from '../../transport/call-scope.js';
import type { FeedMember } from './feed-member.js';
import { byCreationThenKey, readPrefix } from './range-read.js';
import { RetainedWindow } from './retained-window.js';
import { retryForever } from './retry-forever.js';
import type { Watch, WatchStream } from './watch-stream.js';

interface TopicFeedDeps {
  core: EtcdCore;
  stream: WatchStream;
  /** The topic's event prefix. */
  prefix: Buffer;
  topic: string;
  maxReplayBytes: number;
  /** Largest retained window kept in memory for later `'earliest'` members (retained-window.ts). */
  windowBytes: number;
  logger: LeaseLogger;
  instruments: PubSubInstruments;
  /** The last member left and the feed stopped. */
  onIdle(feed: TopicFeed): void;
}

type Change = { type: 'put' | 'delete'; kv: KeyValue };

/**
 * Every fan-out subscription of one topic in this process, on one watch: what etcd sends the process per event does
 * not grow with the number of local subscribers, and a subscriber joining later reads nothing from etcd while the
 * topic's retained events fit `windowBytes` (retained-window.ts).
 *
 * The watch is created "from now" when the first member joins, and its revision is the feed's *position*: every
 * change up to it has been applied. A member joins by buffering the feed's live events (feed-member.ts); then a
 * `'latest'` member counts everything up to the position as seen and goes live; an `'earliest'` member is caught up
 * with the retained events — from the window when it is complete, else from one read of the topic shared by every
 * member waiting for it, merged with the changes the watch brought while it ran — and goes live. No gap (a member
 * buffers from the moment it joins, and the events it is caught up with are the topic as of that moment or later), no
 * duplicate (each member's cursor). After a reconnect the watch stream resumes the watch on its own. If the watch
 * ends (its resume revision was compacted away, or a catch-up did not fit one gRPC message), the feed watches again
 * from now and re-reads the topic, and every member gets what its cursor has not seen; events deleted inside a
 * compacted gap are lost, which is logged and counted.
 */
export class TopicFeed {
  private readonly members = new Set<FeedMember>();
  private readonly window: RetainedWindow;
  private watch: Watch | undefined;
  /** The first watch's creation, which every first join waits for. */
  private readonly created: Promise<void>;
  private position = 0n;
  /** Changes the watch brought since the read in flight began. */
  private since: Change[] | undefined;
  /** Bumped when the watch is lost: a read begun before cannot be completed with its changes. */
  private generation = 0;
  private filling = false;
  private stopped = false;
  private readonly stopController = new AbortController();

  constructor(private readonly deps: TopicFeedDeps) {
    this.window = new RetainedWindow(Math.min(deps.windowBytes, deps.maxReplayBytes));
    this.created = this.rewatch(this.stopController.signal);
    this.created.catch(() => {});
  }

  /**
   * Adds `member` and resolves once it is live (see the class comment): rejects, with the member removed, when
   * `scope` ends first. A member stopped meanwhile resolves at once.
   */
  async join(member: FeedMember, scope: CallScope): Promise<void> {
    if (this.stopped) return member.stop();
    this.members.add(member);
    try {
      await scope.race(this.created);
      if (member.joining) this.place(member);
      await scope.race(member.live);
    } catch (error) {
      this.leave(member);
      throw error;
    }
  }

  /** Removes `member` (nothing more reaches it); the feed stops with its last member. */
  leave(member: FeedMember): void {
    member.stop();
    if (!this.members.delete(member) || this.members.size > 0 || this.stopped) return;
    this.stop();
    this.deps.onIdle(this);
  }

  /** Ends the watch and every member (close). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopController.abort();
    for (const member of this.members) member.stop();
    this.members.clear();
    if (this.watch) this.deps.stream.cancel(this.watch.id);
    this.watch = undefined;
    this.window.clear();
  }

  private place(member: FeedMember): void {
    if (member.startFrom === 'latest') {
      member.startAfter(this.position);
      // Without a watch (being replaced), what came meanwhile arrives with the re-read that catches members up.
      if (this.watch) member.catchUp([]);
      else this.requestFill();
      return;
    }
    member.startAtRetained();
    if (this.window.complete && this.watch) member.catchUp(this.window.events());
    else this.requestFill();
  }

  /** Watch the topic from now; its revision is where the feed stands. */
  private async rewatch(signal: AbortSignal | CallScope['signal']): Promise<void> {
    const watch = await this.deps.stream.watch({ prefix: this.deps.prefix, deletes: true }, this.handler(), signal);
    if (this.stopped) return void this.deps.stream.cancel(watch.id);
    this.watch = watch;
    if (BigInt(watch.createdAt) > this.position) this.position = BigInt(watch.createdAt);
  }

  /** Reads the topic for the members waiting to catch up, once at a time, until none waits. */
  private requestFill(): void {
    if (this.filling || this.stopped) return;
    this.filling = true;
    const { core, logger } = this.deps;
    void retryForever(core, 'subscribe', this.stopController.signal, logger, async (scope) => {
      while (!this.stopped && [...this.members].some((m) => m.waiting)) {
        if (!this.watch) await this.rewatch(scope.signal);
        await this.fill(scope);
      }
    }).finally(() => {
      this.filling = false;
      // The watch may have been lost between the loop's last check and here.
      if (!core.lifetime.aborted && [...this.members].some((m) => m.waiting)) this.requestFill();
    });
  }

  /**
   * One read of the whole topic (at the cluster's current revision), merged with the watch's changes since it began:
   * the topic as the feed stands now. It refills the window and catches up every member waiting. A read overtaken by
   * the loss of the watch is dropped; the caller reads again.
   */
  private async fill(scope: CallScope): Promise<void> {
    const { core, prefix, maxReplayBytes, logger, instruments, topic } = this.deps;
    const generation = this.generation;
    const since: Change[] = [];
    this.since = since;
    let snapshot;
    try {
      snapshot = await readPrefix(core.client, core.runner, scope, prefix, undefined, maxReplayBytes);
    } finally {
      if (this.since === since) this.since = undefined;
    }
    if (generation !== this.generation || this.stopped) return;
    const inTopicOrder = [...snapshot.kvs].sort(byCreationThenKey);
    let retained: KeyValue[];
    if (this.window.fill(inTopicOrder, since)) retained = this.window.events();
    else {
      const merged = new RetainedWindow(Number.POSITIVE_INFINITY);
      merged.fill(inTopicOrder, since);
      retained = merged.events();
    }
    const waiting = [...this.members].filter((m) => m.waiting);
    if (snapshot.skipped > 0) {
      instruments.dropped.add(snapshot.skipped * waiting.length, { reason: 'oversize-replay' });
      logger.warn?.('replay larger than maxReplayBytes: the oldest retained events are skipped', {
        topic,
        skipped: snapshot.skipped,
        bytes: snapshot.skippedBytes,
        subscribers: waiting.length,
      });
    }
    for (const member of waiting) member.catchUp(retained);
  }

  private handler() {
    return {
      onEvents: (events: IEvent[]) => {
        for (const event of events) {
          const kv = event.kv as unknown as KeyValue;
          const type = event.type === 'Put' ? 'put' : 'delete';
          this.window.apply(type, kv);
          this.since?.push({ type, kv });
          // A later write of an event (moved to another lease) is no new event.
          if (type === 'put' && kv.create_revision === kv.mod_revision) for (const member of this.members) member.offer(kv);
        }
        const last = events.at(-1);
        if (last && BigInt(last.kv.mod_revision) > this.position) this.position = BigInt(last.kv.mod_revision);
      },
      onCanceled: (compactRevision: string | undefined, reason: string) => this.lost(compactRevision, reason),
    };
  }

  /**
   * The watch is gone — compaction passed its resume point, or what it had to catch up on did not fit one gRPC
   * message (watch-stream.ts): watch again from now and re-read what is retained, catching every member up.
   */
  private lost(compactRevision: string | undefined, reason: string): void {
    if (this.stopped) return;
    const { logger, instruments, topic } = this.deps;
    this.watch = undefined;
    this.generation++;
    this.since = undefined;
    this.window.clear();
    const lastDelivered = this.position.toString();
    if (compactRevision === undefined) {
      logger.warn?.('event watch ended: re-reading the topic', { topic, reason, lastDelivered });
    } else {
      instruments.watchResumes.add(1, { reason: 'compacted' });
      logger.warn?.('event history was compacted past a subscriber: re-reading the topic; events expired in the gap are lost', {
        topic,
        compactRevision,
        reason,
        lastDelivered,
      });
    }
    for (const member of this.members) member.rejoin();
    this.requestFill();
  }
}
