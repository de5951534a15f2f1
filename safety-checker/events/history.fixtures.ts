import type { EventHistory, RecordedDelivery, RecordedPublish, RecordedSubscription } from './types.js';

/** Small builders for hand-written event histories: times in ms, one topic `t` unless named. */
export const pub = (eventKey: string, sentAt: number, returnedAt = sentAt + 1, extra: Partial<RecordedPublish> = {}): RecordedPublish => ({
  publisher: 'P',
  topic: 't',
  eventKey,
  sentAt,
  returnedAt,
  outcome: 'ok',
  ...extra,
});

export const sub = (subscriber: string, extra: Partial<RecordedSubscription> = {}): RecordedSubscription => ({
  subscriber,
  process: subscriber,
  topic: 't',
  startFrom: 'earliest',
  sentAt: 0,
  liveAt: 0,
  ...extra,
});

/** A delivery acked (with a confirmed ack) 1 ms after it arrived, unless told otherwise. */
export const got = (subscriber: string, eventKey: string, deliveredAt: number, extra: Partial<RecordedDelivery> = {}): RecordedDelivery => ({
  subscriber,
  topic: 't',
  eventKey,
  attempt: 1,
  deliveredAt,
  settledAt: deliveredAt + 1,
  settlement: 'ack',
  settleOutcome: 'ok',
  ...extra,
});

export const history = (parts: Partial<EventHistory>): EventHistory => ({
  publishes: [],
  subscriptions: [],
  deliveries: [],
  endedAt: 10_000,
  ...parts,
});
