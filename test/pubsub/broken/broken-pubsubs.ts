import type { RecordableCallback, RecordableEvent, RecordablePubSub } from '../../../safety-checker/events/event-recorder.js';

/**
 * Deliberately broken pubsubs: each wraps a working one and breaks one promise the event checker holds it to, so
 * a run with it shows the checker flags that break (a negative control) on the same workload, faults and cluster
 * that a correct pubsub passes. They break what a subscriber sees, the way a backend bug would show.
 */
export type BrokenPubSub = (inner: RecordablePubSub) => RecordablePubSub;

/** Loses the `nth` delivery of each subscription (and acks it: the backend thinks it was handled). */
export const dropsOne =
  (nth = 3): BrokenPubSub =>
  (inner) =>
    wrapCallbacks(inner, (cb) => {
      let count = 0;
      return (event, ack, nack) => {
        if (++count === nth) return void ack?.();
        return cb(event, ack, nack);
      };
    });

/** Holds each subscription's `nth` delivery back and hands it over after the one that follows it. */
export const reorders =
  (nth = 3): BrokenPubSub =>
  (inner) =>
    wrapCallbacks(inner, (cb) => {
      let count = 0;
      let held: Parameters<RecordableCallback> | undefined;
      return (event, ack, nack) => {
        count++;
        if (count === nth) {
          held = [event, ack, nack];
          return;
        }
        const result = cb(event, ack, nack);
        if (held) {
          const [e, a, n] = held;
          held = undefined;
          void cb(e, a, n);
        }
        return result;
      };
    });

/**
 * Claims a consumer group's events for every member: a group subscription is made as a fan-out one, so each
 * member processes every event — what a claim without its compare would do.
 */
export const doubleClaims: BrokenPubSub = (inner) => ({
  publish: (topic, event, options) => inner.publish(topic, event, options),
  subscribe: (topic, cb, options) => inner.subscribe(topic, cb, options?.startFrom === undefined ? {} : { startFrom: options.startFrom }),
  unsubscribe: (topic, cb) => inner.unsubscribe(topic, cb),
});

/** Delivers every event twice as the same attempt. */
export const doubleDelivers: BrokenPubSub = (inner) =>
  wrapCallbacks(inner, (cb) => (event, ack, nack) => {
    void cb({ ...event } as RecordableEvent, ack, nack);
    return cb(event, ack, nack);
  });

function wrapCallbacks(inner: RecordablePubSub, breakIt: (cb: RecordableCallback) => RecordableCallback): RecordablePubSub {
  const wrapped = new Map<RecordableCallback, RecordableCallback>();
  return {
    publish: (topic, event, options) => inner.publish(topic, event, options),
    subscribe: (topic, cb, options) => {
      const broken = wrapped.get(cb) ?? breakIt(cb);
      wrapped.set(cb, broken);
      return inner.subscribe(topic, broken, options);
    },
    unsubscribe: (topic, cb) => inner.unsubscribe(topic, wrapped.get(cb) ?? cb),
  };
}
