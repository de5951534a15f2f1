import type { IEvent } from 'etcd3';
import type { LeaseLogger } from '../../config/options.js';
import type { EtcdCore } from '../../core/etcd-core.js';
import { EtcdCompactedError } from '../../errors/compacted.js';
import type { PubSubInstruments } from '../../metrics/instruments.js';
import type { KeyValue } from '../../operations/etcd-txn.js';
import type { CallScope } from '../../transport/call-scope.js';
import { readPrefix } from '../watch/range-read.js';
import { DeliveryCursor } from '../watch/delivery-cursor.js';
import type { Watch, WatchStream } from '../watch/watch-stream.js';
import { retryForever } from '../watch/retry-forever.js';

interface FanoutDeps {
  core: EtcdCore;
  stream: WatchStream;
  /** The topic's event prefix. */
  prefix: Buffer;
  topic: string;
  startFrom: 'earliest' | 'latest';
  maxReplayBytes: number;
  logger: LeaseLogger;
  instruments: PubSubInstruments;
  /** Called with every stored value to deliver, in topic order, once each. */
  deliver(value: Buffer): void;
}

/**
 * One fan-out subscription: every event of the topic, in topic order, once.
 *
 * Start: a watch "from now" is created and confirmed at revision H; with `earliest`, the retained events are read at
 * exactly H and delivered; then the live events the watch buffered meanwhile (all above H): no gap, no overlap, and
 * `subscribe` resolves only once the subscription is live. After a reconnect the watch stream resumes on its own.
 * If the watch ends (etcd canceled it because its resume revision was compacted away, or its catch-up did not fit
 * one gRPC message), the subscription starts over "from now" and re-reads the topic in byte-bounded pages, delivering
 * only what its cursor has not seen; events deleted inside a compacted gap are lost, which is logged and counted.
 */
export class FanoutSubscription {
  private readonly cursor: DeliveryCursor;
  private watch: Watch | undefined;
  /** Live events that arrived before the replay was delivered. */
  private buffer: KeyValue[] | undefined = [];
  private stopped = false;
  private readonly stopController = new AbortController();

  constructor(private readonly deps: FanoutDeps) {
    this.cursor = new DeliveryCursor();
  }

  /** Resolves once the subscription is live (see class comment); rejects when `scope` ends first. */
  async start(scope: CallScope): Promise<void> {
    try {
      await this.begin(scope, this.deps.startFrom === 'earliest');
    } catch (error) {
      this.stop();
      throw error;
    }
  }

  /** False once stopped: redeliveries still pending for it are dropped. */
  get active(): boolean {
    return !this.stopped;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopController.abort();
    if (this.watch) this.deps.stream.cancel(this.watch.id);
  }

  private async begin(scope: CallScope, replay: boolean): Promise<void> {
    for (;;) {
      this.buffer = [];
      const watch = await this.deps.stream.watch({ prefix: this.deps.prefix, deletes: false }, this.handler(), scope.signal);
      if (this.stopped) return void this.deps.stream.cancel(watch.id);
      this.watch = watch;
      if (!replay && this.cursor.revision === 0n) this.cursor.skipThrough(watch.createdAt);
      try {
        if (replay) await this.replay(scope, watch.createdAt);
      } catch (error) {
        // The read's revision was compacted before we got to it: start over from a newer one.
        if (!(error instanceof EtcdCompactedError)) throw error;
        this.deps.stream.cancel(watch.id);
        continue;
      }
      const buffered = this.buffer ?? [];
      this.buffer = undefined;
      for (const kv of buffered) this.offer(kv);
      return;
    }
  }

  private async replay(scope: CallScope, revision: string): Promise<void> {
    const { core, prefix, maxReplayBytes, logger, instruments, topic } = this.deps;
    const snapshot = await readPrefix(core.client, core.runner, scope, prefix, revision, maxReplayBytes);
    if (snapshot.skipped > 0) {
      instruments.dropped.add(snapshot.skipped, { reason: 'oversize-replay' });
      logger.warn?.('replay larger than maxReplayBytes: the oldest retained events are skipped', { topic, skipped: snapshot.skipped, bytes: snapshot.skippedBytes });
    }
    for (const kv of snapshot.kvs) if (!this.stopped) this.offer(kv);
  }

  private handler() {
    return {
      onEvents: (events: IEvent[]) => {
        for (const event of events) {
          if (event.type !== 'Put') continue;
          const kv = event.kv as unknown as KeyValue;
          if (this.buffer) this.buffer.push(kv);
          else this.offer(kv);
        }
      },
      onCanceled: (compactRevision: string | undefined, reason: string) => this.recover(compactRevision, reason),
    };
  }

  private offer(kv: KeyValue): void {
    if (this.stopped || !this.cursor.accept(kv.mod_revision, kv.key)) return;
    this.deps.deliver(kv.value);
  }

  /**
   * The watch is gone — compaction passed its resume point, or what it had to catch up on did not fit one gRPC
   * message (watch-stream.ts): watch again from now and re-read what is retained.
   */
  private recover(compactRevision: string | undefined, reason: string): void {
    if (this.stopped) return;
    const { core, logger, instruments, topic } = this.deps;
    this.watch = undefined;
    const lastDelivered = this.cursor.revision.toString();
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
    void retryForever(core, 'subscribe', this.stopController.signal, logger, (scope) => this.begin(scope, true));
  }
}
