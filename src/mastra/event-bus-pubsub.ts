import { PubSub } from '@mastra/core/events';
import type { Event, EventCallback, PubSubDeliveryMode, SubscribeOptions } from '@mastra/core/events';

import type { LeaseLogger } from '../config/options.js';
import type { BusCallOptions, BusPublishOptions, EtcdEventBus } from '../pubsub/etcd-event-bus.js';
import type { PublishedEvent } from '../pubsub/options.js';

/**
 * The etcd event bus as a Mastra `PubSub`, events only: every member of the 1.71 class, answered by `EtcdEventBus`.
 * `EtcdPubSub` pairs it with the lease provider the way `withEtcdLeases` pairs any pubsub with one.
 */
export class EventBusPubSub extends PubSub {
  private batchNoted = false;

  constructor(
    private readonly bus: EtcdEventBus,
    private readonly logger: LeaseLogger,
  ) {
    super();
  }

  /**
   * Resolves once etcd committed the event (write-behind events: once queued). `options.localOnly` delivers inside
   * this process only. Also takes `deadlineMs` and `signal`.
   */
  publish(topic: string, event: Omit<Event, 'id' | 'createdAt'>, options?: BusPublishOptions): Promise<void> {
    return this.bus.publish(topic, event as PublishedEvent, options);
  }

  /** Resolves once the subscription is live. `options.batch` is not supported natively and is ignored. */
  subscribe(topic: string, cb: EventCallback, options?: SubscribeOptions & BusCallOptions): Promise<void> {
    if (options?.batch !== undefined && !this.batchNoted) {
      this.batchNoted = true;
      this.logger.debug?.('EtcdPubSub: subscribe options.batch is not supported natively and is ignored');
    }
    return this.bus.subscribe(topic, cb, { group: options?.group, startFrom: options?.startFrom, deadlineMs: options?.deadlineMs, signal: options?.signal });
  }

  unsubscribe(topic: string, cb: EventCallback): Promise<void> {
    return this.bus.unsubscribe(topic, cb);
  }

  /** Waits for pending publishes and ack/nack writes (at most `deadlineMs`); never rejects. */
  flush(): Promise<void> {
    return this.bus.flush();
  }

  /** Deletes the topic's retained events and consumer-group claims; never rejects. */
  override clearTopic(topic: string): Promise<void> {
    return this.bus.clearTopic(topic);
  }

  /**
   * Deletes one run's events of the topic (with `producedBefore`, only its unpinned events produced at or before it),
   * as a newer Mastra's PubSub does; never rejects. Not a member of Mastra 1.71's class, so not an override.
   */
  trimTopic(topic: string, options: { runId: string; producedBefore?: number }): Promise<void> {
    return this.bus.trimTopic(topic, options);
  }

  /** Consumer groups are real (one worker per event), so Mastra runs its pull workers on this transport. */
  override get supportedModes(): ReadonlyArray<PubSubDeliveryMode> {
    return ['pull'];
  }

  override get supportsNativeBatching(): boolean {
    return false;
  }

  /** etcd revisions are not dense per-topic offsets. */
  override get supportsOffsets(): boolean {
    return false;
  }

  /** The retained events in topic order from `offset`: positions in the current retention window, not stable offsets. */
  override getHistory(topic: string, offset?: number): Promise<Event[]> {
    return this.bus.getHistory(topic, offset);
  }

  override subscribeWithReplay(topic: string, cb: EventCallback): Promise<void> {
    return this.bus.subscribe(topic, cb, { startFrom: 'earliest' });
  }

  protected override onUnsupportedOffset(offset: number): void {
    this.logger.warn?.('EtcdPubSub has no event offsets; replaying the retained window instead', { offset });
  }

  close(): Promise<void> {
    return this.bus.close();
  }
}
