import { describe, expect, it } from 'vitest';

import { event, freshTopic, numbers, recorder, until } from './helpers.js';
import type { ConformanceSubject } from './subject.js';

/** flush, close, clearTopic, history and localOnly (Mastra's pubsub.d.ts and the Redis backend's lifecycle tests). */
export function lifecycleCases(subject: ConformanceSubject): void {
  describe('flush, close, clearTopic, history, localOnly', () => {
    it('flush resolves once the publishes in flight have', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('flush');
      let resolved = 0;
      const publishes = [1, 2, 3].map((n) => pubsub.publish(topic, event(n)).then(() => void resolved++));
      await pubsub.flush();
      expect(resolved).toBe(3);
      await Promise.all(publishes);
    });

    it('close is idempotent', async () => {
      const pubsub = subject.instance();
      await pubsub.publish(freshTopic('close'), event(1));
      await pubsub.close();
      await expect(pubsub.close()).resolves.toBeUndefined();
    });

    if (subject.closedRejects) {
      it('publish and subscribe on a closed instance reject with a typed error', async () => {
        const pubsub = subject.instance();
        await pubsub.close();
        await expect(pubsub.publish(freshTopic('closed'), event(1))).rejects.toMatchObject({ code: expect.any(String) });
        await expect(pubsub.subscribe(freshTopic('closed'), () => {})).rejects.toMatchObject({ code: expect.any(String) });
      });
    }

    if (subject.separateInstances) {
      it('a publish in flight when close() is called resolves, and reaches the subscribers of other instances', async () => {
        const [publisher, subscriber] = [subject.instance(), subject.instance()];
        const topic = freshTopic('drain');
        const r = recorder();
        await subscriber.subscribe(topic, r.cb);
        const publish = publisher.publish(topic, event(1, {}, 'workflow.end'));
        await publisher.close();
        await expect(publish).resolves.toBeUndefined();
        await until(subject, 'the last event', () => r.events.length === 1);
      });
    }

    it('clearTopic resolves, on a used topic and on one never used, and leaves subscriptions live', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('clear');
      const r = recorder();
      await pubsub.subscribe(topic, r.cb);
      await pubsub.publish(topic, event(1));
      await expect(pubsub.clearTopic(topic)).resolves.toBeUndefined();
      await expect(pubsub.clearTopic(freshTopic('unused'))).resolves.toBeUndefined();
      await pubsub.publish(topic, event(2));
      await until(subject, 'both events', () => r.events.length === 2);
    });

    it('every subscriber of a topic in one instance keeps getting events after clearTopic', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('clear-many');
      const recorders = [recorder(), recorder(), recorder()];
      for (const r of recorders) await pubsub.subscribe(topic, r.cb);
      await pubsub.publish(topic, event(1));
      await until(subject, 'the first event everywhere', () => recorders.every((r) => r.events.length === 1));
      await pubsub.clearTopic(topic);
      await pubsub.publish(topic, event(2));
      await until(subject, 'the event after clearTopic everywhere', () => recorders.every((r) => r.events.length === 2));
      expect(recorders.map((r) => numbers(r.events))).toEqual([[1, 2], [1, 2], [1, 2]]);
    });

    it('supportsOffsets is false (no dense offsets) and the pull mode is supported (Mastra runs its workers)', () => {
      const pubsub = subject.instance();
      expect(pubsub.supportsOffsets).toBe(false);
      expect(pubsub.supportedModes).toContain('pull');
    });

    it('a localOnly event reaches the publishing instance’s subscribers as the very object published', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('local');
      const r = recorder();
      await pubsub.subscribe(topic, r.cb);
      class Holder {
        constructor(readonly value: string) {}
      }
      const holder = new Holder('alpha');
      await pubsub.publish(topic, event(1, { holder }), { localOnly: true });
      await until(subject, 'the local event', () => r.events.length === 1);
      expect((r.events[0]!.data as { holder: Holder }).holder).toBe(holder);
    });

    it('an unsubscribed callback gets no localOnly event either', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('local-gone');
      const [gone, stays] = [recorder(), recorder()];
      await pubsub.subscribe(topic, gone.cb);
      await pubsub.subscribe(topic, stays.cb);
      await pubsub.unsubscribe(topic, gone.cb);
      await pubsub.publish(topic, event(1), { localOnly: true });
      await until(subject, 'the remaining subscriber', () => stays.events.length === 1);
      expect(gone.events).toEqual([]);
    });

    if (subject.localOnlyStaysLocal) {
      it('a localOnly event never reaches another instance', async () => {
        const [publisher, other] = [subject.instance(), subject.instance()];
        const topic = freshTopic('private');
        const [remote, local] = [recorder(), recorder()];
        await other.subscribe(topic, remote.cb);
        await publisher.subscribe(topic, local.cb);
        await publisher.publish(topic, event(1), { localOnly: true });
        await publisher.publish(topic, event(2));
        await until(subject, 'the shared event at both instances', () => remote.events.length >= 1 && local.events.length >= 2);
        expect(numbers(remote.events)).toEqual([2]);
        expect(numbers(local.events)).toEqual([1, 2]);
      });
    }

    if (subject.retains) {
      it('getHistory returns the retained events in topic order, from an offset', async () => {
        const pubsub = subject.instance();
        const topic = freshTopic('history');
        for (let n = 0; n < 4; n++) await pubsub.publish(topic, event(n));
        expect(numbers(await pubsub.getHistory(topic))).toEqual([0, 1, 2, 3]);
        expect(numbers(await pubsub.getHistory(topic, 2))).toEqual([2, 3]);
      });

      it('after clearTopic nothing from before it is replayed or in the history', async () => {
        const pubsub = subject.instance();
        const topic = freshTopic('cleared');
        await pubsub.publish(topic, event(1));
        await pubsub.clearTopic(topic);
        await pubsub.publish(topic, event(2));
        const r = recorder();
        await pubsub.subscribe(topic, r.cb);
        await until(subject, 'the event after clearTopic', () => r.events.length >= 1);
        expect(numbers(r.events)).toEqual([2]);
        expect(numbers(await pubsub.getHistory(topic))).toEqual([2]);
      });
    }
  });
}
