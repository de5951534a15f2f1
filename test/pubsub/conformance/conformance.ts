import { afterEach, describe } from 'vitest';

import { ackCases } from './ack-cases.js';
import { fanoutCases } from './fanout-cases.js';
import { groupCases } from './group-cases.js';
import { leaseCases } from './lease-cases.js';
import { lifecycleCases } from './lifecycle-cases.js';
import type { ConformanceSubject } from './subject.js';

/**
 * What Mastra's pubsub backends are tested for — its Redis Streams and Valkey Streams tests (pubsub.test.ts,
 * reclaim.test.ts, close-drain.test.ts) and its EventEmitterPubSub tests, read case by case and written once against
 * the PubSub contract (Redis-only knobs left out) — run against every subject: EtcdPubSub on a real cluster and
 * Mastra's own EventEmitterPubSub. A case a subject cannot meet is not registered for it, and the subject's file says
 * why; every other case runs against both.
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
