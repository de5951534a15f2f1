import { EventEmitterPubSub } from '@mastra/core/events';

import { pubsubConformance } from './conformance.js';
import type { PubSubUnderTest } from './subject.js';

// The anchor: Mastra's in-process pubsub (1.71). It needs no etcd. What it lacks, and so is not asked of it:
// - separate instances: its groups and leases live in one object, so every `instance()` of a test is that object;
// - retention: an event reaches the subscribers present when it is published, nothing is kept (no backlog, replay,
//   checkpoint or history);
// - redelivery controls: no maxDeliveryAttempts (a nack redelivers forever), no in-flight timeout, a rejected or
//   throwing callback is logged rather than nacked, a fan-out nack does nothing, and a nack after an ack redelivers;
// - closed instances: publish and subscribe still resolve after close;
// - localOnly: ignored, as every event stays in the process anyway;
// - one subscription per (topic, callback): the same callback subscribed twice gets every event twice, and one
//   unsubscribe leaves it subscribed (Mastra's Redis backend, and EtcdPubSub, make the second subscribe a no-op).
let current: EventEmitterPubSub | undefined;

pubsubConformance({
  name: 'EventEmitterPubSub (anchor)',
  instance: () => (current ??= new EventEmitterPubSub()) as unknown as PubSubUnderTest,
  cleanup: async () => {
    await current?.close();
    current = undefined;
  },
  separateInstances: false,
  retains: false,
  redeliveryControls: false,
  closedRejects: false,
  localOnlyStaysLocal: false,
  idempotentSubscribe: false,
  lease: { ttlMs: 1000, expirySlackMs: 200 },
  deliveryMs: 2000,
});
