import type { Event } from '@mastra/core/events';

/**
 * How one event is published (`publishMode`):
 * - `'durable'`: `publish` resolves once the event is committed in etcd;
 * - `'write-behind'`: `publish` resolves once the event is checked and queued; its topic is written at most every
 *   `writeBehindFlushMs` as one batch. Order within the topic is kept; a crash loses at most that long of events,
 *   and a failed flush is logged and counted, not thrown at the publisher;
 * - `'local'`: delivered like `localOnly`: only to this process's subscribers, never written to etcd.
 */
export type PublishMode = 'durable' | 'write-behind' | 'local';

/** The event as `publish` receives it: Mastra's `Event` without the fields the transport fills in. */
export type PublishedEvent = Omit<Event, 'id' | 'createdAt'>;

/** Event options of `EtcdPubSub` (the connection options are `EtcdLeaseProviderOptions`). Validated once. */
export interface EtcdPubSubEventOptions {
  /**
   * Key prefix of events, consumer-group claims and members. Must not overlap the lease `prefix` (neither may be a
   * prefix of the other): lease keys are arbitrary strings, so nothing else may live under `prefix`. The etcd role
   * needs `readwrite` on both.
   * @default beside `prefix`: its last path segment replaced by `events` (`'mastra/lease/'` → `'mastra/events/'`);
   * for a prefix of one segment, `-events` added to it (`'myapp/'` → `'myapp-events/'`, not a top-level `events/`
   * every application would share). Only a one-segment prefix without a trailing `/` (`'myapp'`) makes it required.
   */
  eventPrefix?: string;
  /**
   * How long an event stays in etcd: the window `startFrom: 'earliest'` replays. Work a consumer group waits for
   * stays longer (`groupBacklogMs`). At least 2000 (etcd's minimum lease TTL).
   * @default 60000
   */
  retentionMs?: number;
  /**
   * How long an event of a topic with a consumer group may wait for the group: such an event stays until a member of
   * every group acks it (or drops it after `maxDeliveryAttempts`), however long the group has no member or is busy, up
   * to this bound; what the bound deletes before a handler had it is logged (`grouped event expired before its group
   * finished it`) and counted (`lease_provider.pubsub.dropped_events{reason="backlog-expired"}`) once per group, by a
   * live member. A group's work is kept this long after its last member left, too. At least `retentionMs`.
   * @default 3600000 (one hour)
   */
  groupBacklogMs?: number;
  /**
   * Events published within this window share one etcd lease; an event may outlive `retentionMs` by up to this
   * plus 1 s.
   * @default 5000
   */
  retentionBucketMs?: number;
  /**
   * Largest encoded event (key + value bytes). A larger one is rejected with `EventTooLargeError` and nothing is
   * written. At most 1048576, so that one event always fits etcd's default 1.5 MiB request limit.
   * @default 524288
   */
  maxEventBytes?: number;
  /**
   * Deliveries of one event before a nack (or a rejected callback) drops it with a warning. `Infinity` never drops;
   * so does 0, as in Mastra's Redis Streams backend.
   * @default 5
   */
  maxDeliveryAttempts?: number;
  /**
   * A nacked event is offered again after this many milliseconds times its attempt number.
   * @default 100
   */
  redeliveryDelayMs?: number;
  /**
   * TTL of the session lease that keeps this process's consumer-group memberships alive: how soon a dead
   * consumer's claimed events go to another member. Whole seconds, at least 2000.
   * @default 10000
   */
  groupMemberTtlMs?: number;
  /**
   * A group member that is not the preferred consumer of an event claims it once it stayed unclaimed this long
   * (the preferred one is alive to etcd but not claiming: stalled watch, or at `maxInFlightPerGroup`).
   * @default 5000
   */
  claimTimeoutMs?: number;
  /**
   * Unacknowledged events one process holds per consumer group before it stops claiming more.
   * @default 100
   */
  maxInFlightPerGroup?: number;
  /**
   * A delivery that is neither acked nor nacked this long after it was handed to its callback is nacked on the
   * handler's behalf (Mastra's Redis and Valkey backends use the same name): offered again with `deliveryAttempt` + 1,
   * within `maxDeliveryAttempts` — in a consumer group to another callback of the same process when there is one, else
   * to another member, else to the same callback; a fan-out event to the same callback. The hung handler's own late
   * ack or nack then changes nothing. Set it above the slowest handler you run: Mastra's workflow and schedule workers
   * ack only once the step or agent run they started has finished. 0 turns it off: only a dead consumer's events move.
   * @default 0
   */
  inFlightTimeoutMs?: number;
  /** @deprecated the former name of `inFlightTimeoutMs`, still read when that is not given. */
  ackDeadlineMs?: number;
  /**
   * Chooses, per event, how it is published (see `PublishMode`). `streamPartsWriteBehind` sends Mastra's
   * per-chunk `stream-part` events write-behind and everything else durable.
   * @default every event 'durable'
   */
  publishMode?: (topic: string, event: PublishedEvent) => PublishMode;
  /**
   * Flush interval of write-behind topics: about `1000 / writeBehindFlushMs` etcd writes per second per streaming
   * topic at most.
   * @default 25
   */
  writeBehindFlushMs?: number;
  /**
   * Largest replay one subscribe reads (bytes of retained events); above it the oldest are skipped with a warning.
   * @default 67108864
   */
  maxReplayBytes?: number;
  /**
   * Interval of the behind-the-cluster check: a watch stream whose member answers but stays behind a linearizable
   * read for two checks in a row (a member cut off from the quorum) is reopened on another member, resuming where it
   * stopped. A member that stops answering altogether is found within about 1.5 s whatever this says.
   * @default 5000
   */
  watchCheckMs?: number;
  /**
   * Interval of the compaction check: when etcd kept more than 10 000 revisions over one interval without
   * compacting, a warning is logged (etcd's db then grows until its space quota stops every write). 0 turns it off.
   * @default 600000
   */
  compactionCheckMs?: number;
}
