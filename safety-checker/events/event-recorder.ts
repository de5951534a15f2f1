import { machineClock } from '../recorder.js';
import type { EventHistory, RecordedDelivery, RecordedPublish, RecordedSubscription, Settlement } from './types.js';

/** The part of Mastra's `PubSub` a recorder wraps (structural: any backend's pubsub fits). */
export interface RecordablePubSub {
  publish(topic: string, event: RecordableEvent, options?: { localOnly?: boolean }): Promise<void>;
  subscribe(topic: string, cb: RecordableCallback, options?: { group?: string; startFrom?: 'earliest' | 'latest' }): Promise<void>;
  unsubscribe(topic: string, cb: RecordableCallback): Promise<void>;
}
export interface RecordableEvent {
  readonly type: string;
  readonly data: unknown;
  readonly runId: string;
  readonly deliveryAttempt?: number;
}
export type RecordableCallback = (event: RecordableEvent, ack?: () => Promise<void>, nack?: () => Promise<void>) => void | Promise<void>;

/**
 * What a recorder emits, one record per thing that happened, as it happens: a process that is killed has sent
 * everything up to its death, so histories of several processes are assembled from their streams
 * (`assembleEventHistory`), not from snapshots taken at the end.
 */
export type EventRecord =
  | ({ readonly type: 'publish' } & RecordedPublish)
  | ({ readonly type: 'subscribe' } & Omit<RecordedSubscription, 'endedAt'>)
  | { readonly type: 'unsubscribe'; readonly subscriber: string; readonly at: number }
  | { readonly type: 'delivery'; readonly delivery: string; readonly subscriber: string; readonly topic: string; readonly eventKey: string; readonly attempt: number; readonly deliveredAt: number }
  | { readonly type: 'settle'; readonly delivery: string; readonly settlement: Exclude<Settlement, 'none'>; readonly at: number }
  | { readonly type: 'settled'; readonly delivery: string; readonly outcome: 'ok' | 'error' };

export interface EventRecorderOptions {
  /** The process (pubsub instance) this recorder lives in; names its publishes and subscriptions. */
  readonly process: string;
  readonly sink: (record: EventRecord) => void;
  /** Reads an event's payload key. Default: `event.data.eventKey`. */
  readonly keyOf?: (event: RecordableEvent) => string;
  readonly now?: () => number;
}

const defaultKeyOf = (event: RecordableEvent): string => {
  const key = (event.data as { eventKey?: unknown } | null | undefined)?.eventKey;
  if (typeof key !== 'string') throw new TypeError('event.data.eventKey: the recorder needs a string key in every event (or pass keyOf)');
  return key;
};

/**
 * Wraps a pubsub so that every publish, subscribe, unsubscribe, delivery and ack/nack is recorded on one clock.
 * Callbacks are wrapped (the same callback twice gives the same wrapper, so `unsubscribe` finds it); a callback's
 * rejected promise or throw is recorded as the nack the pubsub reads it as.
 */
export class EventRecorder implements RecordablePubSub {
  private readonly wrappers = new Map<string, Map<RecordableCallback, { wrapper: RecordableCallback; subscriber: string }>>();
  private subscriptions = 0;
  private deliveries = 0;
  private readonly keyOf: (event: RecordableEvent) => string;
  private readonly now: () => number;

  constructor(
    private readonly pubsub: RecordablePubSub,
    private readonly options: EventRecorderOptions,
  ) {
    this.keyOf = options.keyOf ?? defaultKeyOf;
    this.now = options.now ?? machineClock;
  }

  async publish(topic: string, event: RecordableEvent, options?: { localOnly?: boolean }): Promise<void> {
    const eventKey = this.keyOf(event);
    const sentAt = this.now();
    const record = (outcome: 'ok' | 'error') =>
      this.options.sink({ type: 'publish', publisher: this.options.process, topic, eventKey, sentAt, returnedAt: this.now(), outcome });
    try {
      await this.pubsub.publish(topic, event, options);
    } catch (error) {
      record('error');
      throw error;
    }
    record('ok');
  }

  async subscribe(topic: string, cb: RecordableCallback, options?: { group?: string; startFrom?: 'earliest' | 'latest' }): Promise<void> {
    const ofTopic = this.wrappers.get(topic) ?? new Map();
    this.wrappers.set(topic, ofTopic);
    const known = ofTopic.get(cb);
    const subscriber = known?.subscriber ?? `${this.options.process}/${++this.subscriptions}`;
    const wrapper = known?.wrapper ?? this.wrap(subscriber, topic, cb);
    ofTopic.set(cb, { wrapper, subscriber });
    const base = {
      type: 'subscribe' as const,
      subscriber,
      process: this.options.process,
      topic,
      ...(options?.group === undefined ? {} : { group: options.group }),
      startFrom: options?.startFrom ?? 'earliest',
      sentAt: this.now(),
    };
    try {
      await this.pubsub.subscribe(topic, wrapper, options);
    } catch (error) {
      if (!known) this.options.sink(base);
      throw error;
    }
    if (!known) this.options.sink({ ...base, liveAt: this.now() });
  }

  async unsubscribe(topic: string, cb: RecordableCallback): Promise<void> {
    const entry = this.wrappers.get(topic)?.get(cb);
    if (entry === undefined) return this.pubsub.unsubscribe(topic, cb);
    this.wrappers.get(topic)?.delete(cb);
    this.options.sink({ type: 'unsubscribe', subscriber: entry.subscriber, at: this.now() });
    return this.pubsub.unsubscribe(topic, entry.wrapper);
  }

  private wrap(subscriber: string, topic: string, cb: RecordableCallback): RecordableCallback {
    return (event, ack, nack) => {
      const delivery = `${subscriber}#${++this.deliveries}`;
      const { sink } = this.options;
      sink({ type: 'delivery', delivery, subscriber, topic, eventKey: this.keyOf(event), attempt: event.deliveryAttempt ?? 1, deliveredAt: this.now() });
      let settled = false;
      const settle = (settlement: 'ack' | 'nack', call?: () => Promise<void>) => async (): Promise<void> => {
        if (!settled) sink({ type: 'settle', delivery, settlement, at: this.now() });
        const first = !settled;
        settled = true;
        try {
          await call?.();
          if (first) sink({ type: 'settled', delivery, outcome: 'ok' });
        } catch (error) {
          if (first) sink({ type: 'settled', delivery, outcome: 'error' });
          throw error;
        }
      };
      const recordedAck = settle('ack', ack);
      const recordedNack = settle('nack', nack);
      const failed = () => {
        if (!settled) sink({ type: 'settle', delivery, settlement: 'nack', at: this.now() });
        settled = true;
      };
      try {
        const result = cb(event, recordedAck, recordedNack);
        if (result && typeof (result as Promise<void>).then === 'function') {
          return (result as Promise<void>).catch((error: unknown) => {
            failed();
            throw error;
          });
        }
        return result;
      } catch (error) {
        failed();
        throw error;
      }
    };
  }
}

/**
 * Builds one history from the records of every process of a run. `processEnds` names processes that ended (were
 * killed) before `endedAt`: their subscriptions end then, and their unsettled deliveries stay unsettled.
 */
export function assembleEventHistory(records: Iterable<EventRecord>, endedAt: number, processEnds: ReadonlyMap<string, number> = new Map()): EventHistory {
  const publishes: RecordedPublish[] = [];
  const subscriptions = new Map<string, RecordedSubscription>();
  const unsubscribed = new Map<string, number>();
  const deliveries = new Map<string, { -readonly [K in keyof RecordedDelivery]: RecordedDelivery[K] }>();
  for (const r of records) {
    switch (r.type) {
      case 'publish': {
        const { type: _, ...p } = r;
        publishes.push(p);
        break;
      }
      case 'subscribe': {
        const { type: _, ...s } = r;
        subscriptions.set(s.subscriber, s);
        break;
      }
      case 'unsubscribe':
        unsubscribed.set(r.subscriber, r.at);
        break;
      case 'delivery': {
        const { subscriber, topic, eventKey, attempt, deliveredAt } = r;
        deliveries.set(r.delivery, { subscriber, topic, eventKey, attempt, deliveredAt, settlement: 'none' });
        break;
      }
      case 'settle': {
        const d = deliveries.get(r.delivery);
        if (d) Object.assign(d, { settlement: r.settlement, settledAt: r.at });
        break;
      }
      case 'settled': {
        const d = deliveries.get(r.delivery);
        if (d) d.settleOutcome = r.outcome;
        break;
      }
    }
  }
  const ended = [...subscriptions.values()].map((s): RecordedSubscription => {
    const at = Math.min(unsubscribed.get(s.subscriber) ?? Infinity, processEnds.get(s.process) ?? Infinity);
    return Number.isFinite(at) ? { ...s, endedAt: at } : s;
  });
  return { publishes, subscriptions: ended, deliveries: [...deliveries.values()], endedAt };
}
