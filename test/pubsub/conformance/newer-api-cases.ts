import type { Event } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { elapse } from '../../support/wait.js';
import { freshTopic, numbers, recorder, until } from './helpers.js';
import type { ConformanceSubject, PubSubUnderTest } from './subject.js';

/** What a callback of a newer Mastra is handed: `extend`, a heartbeat that pushes back the in-flight deadline. */
type NewerCallback = (event: Event, ack?: () => Promise<void>, nack?: () => Promise<void>, extend?: () => Promise<void>) => unknown;
type NewerPubSub = Omit<PubSubUnderTest, 'subscribe'> & {
  subscribe(topic: string, cb: NewerCallback, options?: { group?: string }): Promise<void>;
  trimTopic(topic: string, options: { runId: string; producedBefore?: number }): Promise<void>;
};

/**
 * The members Mastra's PubSub gained after 1.71, as its Redis Streams backend on main has them: `trimTopic(topic,
 * { runId, producedBefore? })` deletes one run's events (with `producedBefore`, only its unpinned events produced at or
 * before it) and never rejects; callbacks get a fourth argument, `extend`, which pushes back a delivery's in-flight
 * deadline, so a long handler keeps its event; `maxDeliveryAttempts: 0` means no cap, and is warned about.
 */
export function newerApiCases(subject: ConformanceSubject): void {
  const instance = (settings?: Parameters<ConformanceSubject['instance']>[0]) => subject.instance(settings) as unknown as NewerPubSub;
  const runEvent = (n: number, runId: string, data: Record<string, unknown> = {}) => ({ type: 'test', runId, data: { n, ...data } });

  describe('trimTopic', () => {
    it("deletes one run's events: no longer in the history nor replayed, while other runs' events stay", async () => {
      const pubsub = instance();
      const topic = freshTopic('trim');
      await pubsub.publish(topic, runEvent(1, 'run-a'));
      await pubsub.publish(topic, runEvent(2, 'run-b'));
      await pubsub.publish(topic, runEvent(3, 'run-a'));
      await pubsub.publish(topic, runEvent(4, 'run-b'));
      await pubsub.trimTopic(topic, { runId: 'run-a' });
      expect(numbers(await pubsub.getHistory(topic))).toEqual([2, 4]);
      const r = recorder();
      await pubsub.subscribe(topic, r.cb);
      await pubsub.publish(topic, runEvent(5, 'run-a'));
      await until(subject, 'the replay and the new event', () => r.events.length >= 3);
      expect(numbers(r.events)).toEqual([2, 4, 5]);
    });

    it("with producedBefore, deletes only the run's unpinned events produced at or before it", async () => {
      const pubsub = instance();
      const topic = freshTopic('trim-before');
      await pubsub.publish(topic, runEvent(1, 'run-a', { producedAt: 100 }));
      await pubsub.publish(topic, runEvent(2, 'run-a', { producedAt: 200 }));
      await pubsub.publish(topic, runEvent(3, 'run-a', { producedAt: 150, pinned: true }));
      await pubsub.publish(topic, runEvent(4, 'run-a', { producedAt: 300 }));
      await pubsub.publish(topic, runEvent(5, 'run-b', { producedAt: 100 }));
      await pubsub.publish(topic, runEvent(6, 'run-a'));
      await pubsub.trimTopic(topic, { runId: 'run-a', producedBefore: 200 });
      expect(numbers(await pubsub.getHistory(topic))).toEqual([3, 4, 5, 6]);
    });

    it('resolves on a topic never used, and on a closed instance', async () => {
      const pubsub = instance();
      await expect(pubsub.trimTopic(freshTopic('never'), { runId: 'r' })).resolves.toBeUndefined();
      await pubsub.close();
      await expect(pubsub.trimTopic(freshTopic('closed'), { runId: 'r' })).resolves.toBeUndefined();
    });
  });

  describe('extend', () => {
    /** Short, so that a handler three times as long fits a few seconds; far above one delivery's latency. */
    const TIMEOUT_MS = 600;

    /** Attempts seen, by a callback that heartbeats every third of the timeout and acks after three timeouts. */
    const heartbeating = async (group: string | undefined) => {
      const pubsub = instance({ inFlightTimeoutMs: TIMEOUT_MS });
      const topic = freshTopic('extend');
      const attempts: number[] = [];
      const handed: string[] = [];
      let acked = false;
      await pubsub.subscribe(
        topic,
        async (e, ack, _nack, extend) => {
          attempts.push(e.deliveryAttempt ?? 1);
          handed.push(typeof extend);
          for (let beat = 0; beat < 9; beat++) {
            await elapse(TIMEOUT_MS / 3);
            await extend?.();
          }
          await ack?.();
          acked = true;
        },
        group === undefined ? undefined : { group },
      );
      await pubsub.publish(topic, runEvent(1, 'run-a'));
      await until(subject, 'the handler to be called', () => handed.length > 0);
      expect(handed[0]).toBe('function');
      await until(subject, 'the ack', () => acked, 4 * TIMEOUT_MS + subject.deliveryMs);
      await pubsub.flush();
      await elapse(2 * TIMEOUT_MS); // past any timeout the heartbeat failed to push back: that none comes is the condition
      return attempts;
    };

    it('a grouped handler that heartbeats keeps its event past inFlightTimeoutMs and is called once', async () => {
      expect(await heartbeating('g')).toEqual([1]);
    });

    it('a fan-out handler that heartbeats keeps its event past inFlightTimeoutMs and is called once', async () => {
      expect(await heartbeating(undefined)).toEqual([1]);
    });
  });

  describe('maxDeliveryAttempts 0', () => {
    it('is warned about, and means no cap: a nacked event keeps coming past five attempts', async () => {
      const warnings: string[] = [];
      const pubsub = instance({ maxDeliveryAttempts: 0, logger: { warn: (m) => warnings.push(m) } });
      const topic = freshTopic('uncapped');
      const attempts: number[] = [];
      await pubsub.subscribe(topic, (e, _ack, nack) => void (attempts.push(e.deliveryAttempt ?? 1), nack?.()), { group: 'g' });
      await pubsub.publish(topic, runEvent(1, 'run-a'));
      await until(subject, 'eight attempts', () => attempts.length >= 8);
      expect(attempts.slice(0, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(warnings.some((w) => /maxDeliveryAttempts/.test(w))).toBe(true);
    });
  });
}
