import { assembleEventHistory, EventRecorder, type EventRecord, type RecordableEvent, type RecordablePubSub } from '../../safety-checker/events/event-recorder.js';
import type { EventHistory } from '../../safety-checker/events/types.js';
import { machineClock } from '../../safety-checker/recorder.js';

export interface RecordPubSubOptions {
  /** Names this process (this pubsub instance) in the history; faults name processes. @default `pid-<pid>` */
  process?: string;
  /** Called with each record as it happens: send them to the process that checks the run. */
  onRecord?: (record: EventRecord) => void;
  /**
   * Reads the key that tells events apart from each event (a publish that threw has no id, yet may be delivered).
   * @default `event.data.eventKey`, which the workload must then put into every event it publishes
   */
  keyOf?: (event: RecordableEvent) => string;
  /** @default machineClock, shared by every process on one machine */
  now?: () => number;
}

/** What `recordPubSub` adds to the pubsub it wraps. */
export interface PubSubRecording {
  /** Every publish, subscribe, unsubscribe, delivery and ack/nack so far. */
  readonly records: readonly EventRecord[];
  /** The records as a history for `checkEventHistory`, ended now (or at `endedAt`). */
  history(endedAt?: number): EventHistory;
}

/**
 * Wraps a pubsub (EtcdPubSub, or any of Mastra's) so that every publish, subscription, delivery and ack/nack is
 * recorded on one clock; the rest of the pubsub passes through. Histories of several processes are assembled with
 * `assembleEventHistory` from the records each sent with `onRecord`, and checked by `checkEventHistory`.
 */
export function recordPubSub<P extends RecordablePubSub>(pubsub: P, options: RecordPubSubOptions = {}): P & PubSubRecording {
  if (pubsub === null || typeof pubsub !== 'object') throw new TypeError(`pubsub must be a pubsub object, got ${pubsub === null ? 'null' : typeof pubsub}`);
  for (const method of ['publish', 'subscribe', 'unsubscribe'] as const) {
    if (typeof pubsub[method] !== 'function') throw new TypeError(`pubsub.${method} must be a function: recordPubSub wraps a PubSub`);
  }
  const records: EventRecord[] = [];
  const now = options.now ?? machineClock;
  const recorder = new EventRecorder(pubsub, {
    process: options.process ?? `pid-${process.pid}`,
    now,
    ...(options.keyOf === undefined ? {} : { keyOf: options.keyOf }),
    sink: (record) => {
      records.push(record);
      options.onRecord?.(record);
    },
  });
  const recorded: Record<PropertyKey, unknown> = {
    publish: recorder.publish.bind(recorder),
    subscribe: recorder.subscribe.bind(recorder),
    unsubscribe: recorder.unsubscribe.bind(recorder),
    records,
    history: (endedAt: number = now()) => assembleEventHistory(records, endedAt),
  };
  // A proxy, not a copy: Mastra checks its pubsub's class, and the other members must reach the real instance.
  return new Proxy(pubsub, {
    get(target, property) {
      if (Object.hasOwn(recorded, property)) return recorded[property];
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as P & PubSubRecording;
}
