import type { Event, EventCallback } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { elapse } from '../../support/wait.js';
import { event, freshTopic, until } from './helpers.js';
import type { ConformanceSubject } from './subject.js';

/**
 * ack, nack and redelivery (Mastra's `EventCallback`: nack requeues for redelivery, a rejected promise is a nack, an
 * unsettled delivery stays in flight until the backend's deadline), the redelivery cap, and the in-flight timeout of
 * Mastra's Redis and Valkey backends (`inFlightTimeoutMs`: a hung handler's event is nacked on its behalf).
 */
export function ackCases(subject: ConformanceSubject): void {
  describe('ack, nack and redelivery', () => {
    it('a nacked grouped event comes again with deliveryAttempt + 1 and the same id', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('nack');
      const seen: Event[] = [];
      const cb: EventCallback = (e, ack, nack) => {
        seen.push(e);
        void ((e.deliveryAttempt ?? 1) < 2 ? nack?.() : ack?.());
      };
      await pubsub.subscribe(topic, cb, { group: 'retry' });
      await pubsub.publish(topic, event(1));
      await until(subject, 'the redelivery', () => seen.length >= 2);
      expect(seen.map((e) => e.deliveryAttempt)).toEqual([1, 2]);
      expect(seen[1]!.id).toBe(seen[0]!.id);
    });

    it('a grouped handler that takes long before it acks is called once', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('long');
      let calls = 0;
      let acked = false;
      await pubsub.subscribe(
        topic,
        async (_e, ack) => {
          calls++;
          await elapse(800);
          await ack?.();
          acked = true;
        },
        { group: 'slow' },
      );
      await pubsub.publish(topic, event(1));
      await until(subject, 'the ack', () => acked);
      await pubsub.flush();
      await elapse(500); // past the ack: that no second call comes is the condition
      expect(calls).toBe(1);
    });

    if (!subject.redeliveryControls) return;

    /** Attempts a grouped callback sees for one event when it handles each delivery with `handle`. */
    const attemptsOf = async (settings: Parameters<ConformanceSubject['instance']>[0], handle: EventCallback, group: string | undefined = 'g') => {
      const pubsub = subject.instance(settings);
      const topic = freshTopic('attempts');
      const attempts: number[] = [];
      const cb: EventCallback = (e, ack, nack) => {
        attempts.push(e.deliveryAttempt ?? 1);
        return handle(e, ack, nack);
      };
      await pubsub.subscribe(topic, cb, group === undefined ? undefined : { group });
      await pubsub.publish(topic, event(1));
      return { attempts, pubsub };
    };

    it('a callback that rejects, or throws, is a nack', async () => {
      const rejects = await attemptsOf({}, async (e, ack) => {
        if (e.deliveryAttempt === 1) throw new Error('boom');
        await ack?.();
      });
      const throws = await attemptsOf({}, (e, ack) => {
        if (e.deliveryAttempt === 1) throw new Error('boom');
        void ack?.();
      });
      await until(subject, 'both redelivered', () => rejects.attempts.length >= 2 && throws.attempts.length >= 2);
      expect([rejects.attempts, throws.attempts]).toEqual([[1, 2], [1, 2]]);
    });

    it('after maxDeliveryAttempts nacks the event is dropped with a warning, and not offered again', async () => {
      const warnings: string[] = [];
      const { attempts, pubsub } = await attemptsOf({ maxDeliveryAttempts: 3, logger: { warn: (m) => warnings.push(m) } }, (_e, _ack, nack) => void nack?.());
      await until(subject, 'the drop warning', () => warnings.some((w) => /dropped after its last delivery attempt/.test(w)));
      await pubsub.flush();
      expect(attempts).toEqual([1, 2, 3]);
    });

    it('maxDeliveryAttempts Infinity keeps redelivering', async () => {
      const { attempts } = await attemptsOf({ maxDeliveryAttempts: Number.POSITIVE_INFINITY }, (_e, _ack, nack) => void nack?.());
      await until(subject, 'eight attempts', () => attempts.length >= 8);
      expect(attempts.slice(0, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    });

    it('a fan-out nack redelivers to the same callback', async () => {
      const { attempts } = await attemptsOf({}, (e, ack, nack) => void (e.deliveryAttempt === 1 ? nack?.() : ack?.()), undefined);
      await until(subject, 'the redelivery', () => attempts.length >= 2);
      expect(attempts).toEqual([1, 2]);
    });

    it('a nack after an ack, and a second ack, change nothing', async () => {
      const { attempts, pubsub } = await attemptsOf({}, async (_e, ack, nack) => {
        await ack?.();
        await ack?.();
        await nack?.();
      });
      await until(subject, 'the delivery', () => attempts.length === 1);
      await pubsub.flush();
      await elapse(500); // well past a nack's redelivery delay: that no redelivery comes is the condition
      expect(attempts).toEqual([1]);
    });

    describe('inFlightTimeoutMs', () => {
      /** Short, so that three attempts fit a few seconds; far above one delivery's latency. */
      const TIMEOUT_MS = 600;
      const hang: EventCallback = () => {};

      it('a hung handler of a group with one callback is nacked on its behalf after the timeout, within the attempt cap', async () => {
        const { attempts, pubsub } = await attemptsOf({ inFlightTimeoutMs: TIMEOUT_MS, maxDeliveryAttempts: 3 }, hang);
        await until(subject, 'three attempts', () => attempts.length === 3, 3 * TIMEOUT_MS + subject.deliveryMs);
        await pubsub.flush();
        expect(attempts).toEqual([1, 2, 3]);
      });

      it('a hung fan-out handler gets its event again after the timeout, within the attempt cap', async () => {
        const { attempts } = await attemptsOf({ inFlightTimeoutMs: TIMEOUT_MS, maxDeliveryAttempts: 3 }, hang, undefined);
        await until(subject, 'three attempts', () => attempts.length === 3, 3 * TIMEOUT_MS + subject.deliveryMs);
        expect(attempts).toEqual([1, 2, 3]);
      });

      it('a handler that acks before the timeout is not offered the event again', async () => {
        const { attempts, pubsub } = await attemptsOf({ inFlightTimeoutMs: 4 * TIMEOUT_MS }, (_e, ack) => void setTimeout(() => void ack?.(), TIMEOUT_MS));
        await until(subject, 'the delivery', () => attempts.length === 1);
        await elapse(5 * TIMEOUT_MS); // well past the timeout: that no redelivery comes is the condition
        await pubsub.flush();
        expect(attempts).toEqual([1]);
      });

      it("a hung callback's event goes to another callback of its group", async () => {
        const pubsub = subject.instance({ inFlightTimeoutMs: TIMEOUT_MS });
        const topic = freshTopic('sibling');
        const got: Array<{ who: string; attempt: number }> = [];
        const member = (who: string): EventCallback => (e, ack) => {
          got.push({ who, attempt: e.deliveryAttempt ?? 1 });
          if (e.deliveryAttempt !== 1) void ack?.();
        };
        await pubsub.subscribe(topic, member('a'), { group: 'g' });
        await pubsub.subscribe(topic, member('b'), { group: 'g' });
        await pubsub.publish(topic, event(1));
        await until(subject, 'attempt 2', () => got.length === 2, TIMEOUT_MS + subject.deliveryMs);
        expect(got.map((g) => g.attempt)).toEqual([1, 2]);
        expect(got[1]!.who).not.toBe(got[0]!.who);
      });
    });
  });
}
