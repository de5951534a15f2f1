/**
 * Shapes of a recorded event history (publishes, subscriptions, deliveries) and of the verdicts on it.
 *
 * As for leases (../types.ts), every time is milliseconds on ONE clock shared by every process of the run
 * (`machineClock`): publish-before-delivery and "two members at once" compare times across processes.
 *
 * Events are told apart by a key the workload puts into each event's payload (`eventKey`), not by the id the
 * pubsub assigns: a publish that threw has no id, yet it may have committed and be delivered.
 */

/** How a publish ended, as its caller saw it. `error` is ambiguous: the event may or may not have been committed. */
export type PublishOutcome = 'ok' | 'error';

export interface RecordedPublish {
  /** The process (pubsub instance) that published: per-publisher order is a promise of the pubsub. */
  readonly publisher: string;
  readonly topic: string;
  readonly eventKey: string;
  readonly sentAt: number;
  readonly returnedAt: number;
  readonly outcome: PublishOutcome;
}

export interface RecordedSubscription {
  /** One callback's subscription: unique in the history. */
  readonly subscriber: string;
  /** The process the subscription lives in (a consumer group's member); faults name processes. */
  readonly process: string;
  readonly topic: string;
  /** Set for a consumer-group subscription: each event goes to one member of the group. */
  readonly group?: string;
  readonly startFrom: 'earliest' | 'latest';
  /** When `subscribe` was called. */
  readonly sentAt: number;
  /** When `subscribe` resolved; absent when it threw (then nothing is owed to it). */
  readonly liveAt?: number;
  /** When `unsubscribe` was called or the process ended; absent: still subscribed when the history ended. */
  readonly endedAt?: number;
}

/** How a handler settled a delivery. `none`: it had not when the history ended (or its process died). */
export type Settlement = 'ack' | 'nack' | 'none';

export interface RecordedDelivery {
  readonly subscriber: string;
  readonly topic: string;
  readonly eventKey: string;
  /** `event.deliveryAttempt` as delivered (1 when the pubsub gave none). */
  readonly attempt: number;
  readonly deliveredAt: number;
  /** When the handler called ack or nack (or its promise rejected, a nack). */
  readonly settledAt?: number;
  readonly settlement: Settlement;
  /** Whether the ack()/nack() call's own promise resolved; absent when it had not settled when recorded. */
  readonly settleOutcome?: 'ok' | 'error';
}

export interface EventHistory {
  readonly publishes: readonly RecordedPublish[];
  readonly subscriptions: readonly RecordedSubscription[];
  readonly deliveries: readonly RecordedDelivery[];
  /** When recording ended (after faults healed and deliveries were given time to arrive). */
  readonly endedAt: number;
}

/** A process that could not act for a while (killed, paused, cut off): its deliveries may be taken over meanwhile. */
export interface ProcessFault {
  readonly process: string;
  readonly start: number;
  /** Absent: until the history ended (a killed process). */
  readonly end?: number;
}

export interface EventCheckOptions {
  /**
   * How long the pubsub keeps events for subscribers that join later (EtcdPubSub's `retentionMs`). An `'earliest'`
   * subscription is owed the events published no longer than this before it subscribed. Default: Infinity.
   */
  readonly retentionMs?: number;
  /** The pubsub's redelivery cap: an event nacked this many times may be dropped. Default 5; 0 means no cap. */
  readonly maxDeliveryAttempts?: number;
  /**
   * The pubsub's in-flight timeout (0: none): a delivery unsettled this long may be offered again, so a later
   * delivery of the same event to another member is no longer "at the same time". Default 0.
   */
  readonly inFlightTimeoutMs?: number;
  /**
   * Does the pubsub keep one publisher's publishes to a topic in call order (EtcdPubSub does, for those that
   * succeed)? Default true.
   */
  readonly publisherOrder?: boolean;
  /** Does every redelivery carry a higher `deliveryAttempt` (EtcdPubSub's does)? Default true. */
  readonly attemptsIncrease?: boolean;
  /** Processes faulted during the run: a member whose process was faulted may have its deliveries taken over. */
  readonly faults?: readonly ProcessFault[];
}

/**
 * - `lost`: a subscriber (fan-out) or a group was owed an event and never got it (a group: never acked it);
 * - `order`: a subscriber got events out of topic order (or two subscribers saw two events in opposite orders);
 * - `duplicate`: an event delivered again beyond at-least-once (the same attempt twice, or again after an ack
 *   the pubsub confirmed);
 * - `concurrent`: two members of a group processed one event at the same time while neither had been faulted
 *   or timed out.
 */
export type EventViolationKind = 'lost' | 'order' | 'duplicate' | 'concurrent';

export interface EventViolation {
  readonly kind: EventViolationKind;
  readonly topic: string;
  /** The subscription, or `group:<name>` for a group's verdict. */
  readonly subscriber: string;
  /** The event(s) concerned, by payload key. */
  readonly eventKeys: readonly string[];
  /** One readable sentence: what happened, with times. */
  readonly detail: string;
}

export interface EventSummary {
  readonly publishes: number;
  readonly publishErrors: number;
  readonly deliveries: number;
  /** Deliveries past the first of an (event, subscriber or group): at-least-once redeliveries, legitimate or not. */
  readonly redeliveries: number;
  /** Events a group dropped after `maxDeliveryAttempts` nacks (allowed; counted). */
  readonly droppedAfterNacks: number;
  /** From a publish's resolve to the first delivery to each owed subscriber, in ms (events published while live). */
  readonly deliveryLatencyMs: { readonly p50: number; readonly p99: number; readonly max: number; readonly count: number };
}

export interface EventVerdict {
  readonly violations: readonly EventViolation[];
  readonly summary: EventSummary;
}
