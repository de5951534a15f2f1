import { afterEach, describe } from 'vitest';

import { ackCases } from './ack-cases.js';
import { fanoutCases } from './fanout-cases.js';
import { groupCases } from './group-cases.js';
import { leaseCases } from './lease-cases.js';
import { lifecycleCases } from './lifecycle-cases.js';
import type { ConformanceSubject } from './subject.js';

/**
 * What Mastra's pubsub backends are tested for — its Redis Streams and Valkey Streams tests (pubsub.test.ts,
 * fanout-sharing.test.ts, reclaim.test.ts, close-drain.test.ts, as they stand on Mastra's main) and its
 * EventEmitterPubSub tests, read case by case and written once against the PubSub contract — run against every
 * subject: EtcdPubSub on a real cluster and Mastra's own EventEmitterPubSub. Left out: Redis-only knobs and internals
 * (connection counts, pending-entry lists, MAXLEN trimming, mocked clients), cases whose leases are shorter than
 * etcd's whole-second minimum, and the Redis fan-out's shared nack (one subscriber's nack redelivers to every local
 * subscriber there; here a nack redelivers to the callback that nacked). The members Mastra's PubSub gained after
 * 1.71 are in newer-api-cases.ts, run from a file of their own. A case a subject cannot meet is not registered for
 * it, and the subject's file says why; every other case runs against both.
 */
export function pubsubConformance(subject: ConformanceSubject): void {
  describe(`PubSub conformance: ${subject.name}`, () => {
    afterEach(() => subject.cleanup());
    fanoutCases(subject);
    groupCases(subject);
    ackCases(subject);
    lifecycleCases(subject);
    leaseCases(subject);
  });
}
