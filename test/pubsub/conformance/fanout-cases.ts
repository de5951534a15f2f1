import { describe, expect, it } from 'vitest';

import { event, freshTopic, numbers, recorder, until } from './helpers.js';
import type { ConformanceSubject } from './subject.js';

/** Subscribers without a group: every one gets every event (Mastra's types.d.ts, `SubscribeOptions.group`). */
export function fanoutCases(subject: ConformanceSubject): void {
  describe('fan-out', () => {
    it('every subscriber gets every event, on the publishing instance and on another', async () => {
      const [publisher, other] = [subject.instance(), subject.instance()];
      const topic = freshTopic('fanout');
      const [a, b, c] = [recorder(), recorder(), recorder()];
      await publisher.subscribe(topic, a.cb);
      await publisher.subscribe(topic, b.cb);
      await other.subscribe(topic, c.cb);
      await publisher.publish(topic, event(1));
      await until(subject, 'every subscriber', () => [a, b, c].every((r) => r.events.length === 1));
      expect([a, b, c].map((r) => numbers(r.events))).toEqual([[1], [1], [1]]);
    });

    it('a delivered event has a fresh string id and a Date createdAt, keeps type, runId and data, and is deliveryAttempt 1', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('stamp');
      const r = recorder();
      await pubsub.subscribe(topic, r.cb);
      await pubsub.publish(topic, event(1, { nested: { list: [1, 'two'] } }, 'stamped'));
      await pubsub.publish(topic, event(2));
      await until(subject, 'both events', () => r.events.length === 2);
      const [first, second] = r.events;
      expect(first).toMatchObject({ type: 'stamped', runId: 'run-1', data: { n: 1, nested: { list: [1, 'two'] } }, deliveryAttempt: 1 });
      expect(typeof first!.id).toBe('string');
      expect(first!.id).not.toBe(second!.id);
      expect(first!.createdAt).toBeInstanceOf(Date);
    });

    it("one publisher's events arrive in publish order", async () => {
      const [publisher, other] = [subject.instance(), subject.instance()];
      const topic = freshTopic('order');
      const r = recorder();
      await other.subscribe(topic, r.cb);
      for (let n = 0; n < 20; n++) await publisher.publish(topic, event(n));
      await until(subject, '20 events', () => r.events.length === 20);
      expect(numbers(r.events)).toEqual([...Array(20).keys()]);
    });

    it('an unsubscribed callback gets nothing more; the others keep getting events', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('unsubscribe');
      const [gone, stays] = [recorder(), recorder()];
      await pubsub.subscribe(topic, gone.cb);
      await pubsub.subscribe(topic, stays.cb);
      await pubsub.unsubscribe(topic, gone.cb);
      await pubsub.publish(topic, event(1));
      await until(subject, 'the remaining subscriber', () => stays.events.length === 1);
      expect(gone.events).toEqual([]);
    });

    it('no delivery across topics, not even between topics whose names extend one another', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('topics');
      const [short, long] = [recorder(), recorder()];
      await pubsub.subscribe(topic, short.cb);
      await pubsub.subscribe(`${topic}.reply`, long.cb);
      await pubsub.publish(topic, event(1));
      await pubsub.publish(`${topic}.reply`, event(2));
      await until(subject, 'one event each', () => short.events.length === 1 && long.events.length === 1);
      expect([numbers(short.events), numbers(long.events)]).toEqual([[1], [2]]);
    });

    it('the same callback on two topics: unsubscribing from one keeps the other', async () => {
      const pubsub = subject.instance();
      const [first, second] = [freshTopic('first'), freshTopic('second')];
      const r = recorder();
      await pubsub.subscribe(first, r.cb);
      await pubsub.subscribe(second, r.cb);
      await pubsub.unsubscribe(first, r.cb);
      await pubsub.publish(first, event(1));
      await pubsub.publish(second, event(2));
      await until(subject, 'the event on the topic kept', () => r.events.length >= 1);
      expect(numbers(r.events)).toEqual([2]);
    });

    it('unsubscribing a callback that never subscribed resolves', async () => {
      await expect(subject.instance().unsubscribe(freshTopic('never'), () => {})).resolves.toBeUndefined();
    });

    it("startFrom 'latest' gets only what is published after subscribe resolved", async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('latest');
      await pubsub.publish(topic, event(1));
      const r = recorder();
      await pubsub.subscribe(topic, r.cb, { startFrom: 'latest' });
      await pubsub.publish(topic, event(2));
      await until(subject, 'the live event', () => r.events.length >= 1);
      expect(numbers(r.events)).toEqual([2]);
    });

    it('many callbacks of one instance on one topic, subscribed at once, each get an event once', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('concurrent');
      const recorders = Array.from({ length: 10 }, () => recorder());
      await Promise.all(recorders.map((r) => pubsub.subscribe(topic, r.cb)));
      await pubsub.publish(topic, event(1));
      await until(subject, 'every callback', () => recorders.every((r) => r.events.length >= 1));
      await pubsub.publish(topic, event(2));
      await until(subject, 'the second event everywhere', () => recorders.every((r) => r.events.length >= 2));
      expect(recorders.map((r) => numbers(r.events))).toEqual(recorders.map(() => [1, 2]));
    });

    it('callbacks of one topic that unsubscribe leave the last one delivering, and get nothing more', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('last-one');
      const recorders = Array.from({ length: 10 }, () => recorder());
      for (const r of recorders) await pubsub.subscribe(topic, r.cb);
      for (const r of recorders.slice(0, 9)) await pubsub.unsubscribe(topic, r.cb);
      await pubsub.publish(topic, event(1));
      await until(subject, 'the last subscriber', () => recorders[9]!.events.length === 1);
      expect(recorders.slice(0, 9).map((r) => r.events.length)).toEqual(Array(9).fill(0));
    });

    it("a callback subscribing with 'latest' while its topic's last subscriber unsubscribes gets what is published next", async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('handover');
      const [leaving, arriving] = [recorder(), recorder()];
      await pubsub.subscribe(topic, leaving.cb);
      await Promise.all([pubsub.unsubscribe(topic, leaving.cb), pubsub.subscribe(topic, arriving.cb, { startFrom: 'latest' })]);
      await pubsub.publish(topic, event(1));
      await until(subject, 'the event', () => arriving.events.length === 1);
      expect(leaving.events).toEqual([]);
    });

    it("a later 'latest' subscriber of a topic others follow gets only what is published after it joined", async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('later-latest');
      const [early, late] = [recorder(), recorder()];
      await pubsub.subscribe(topic, early.cb);
      await pubsub.publish(topic, event(1));
      await pubsub.publish(topic, event(2));
      await until(subject, 'the first two', () => early.events.length === 2);
      await pubsub.subscribe(topic, late.cb, { startFrom: 'latest' });
      await pubsub.publish(topic, event(3));
      await until(subject, 'the third at both', () => early.events.length === 3 && late.events.length === 1);
      expect(numbers(late.events)).toEqual([3]);
    });

    if (subject.idempotentSubscribe) {
      it('the same callback subscribed twice to a topic gets each event once, and one unsubscribe ends it', async () => {
        const pubsub = subject.instance();
        const topic = freshTopic('twice');
        const [twice, marker] = [recorder(), recorder()];
        await pubsub.subscribe(topic, twice.cb);
        await pubsub.subscribe(topic, twice.cb);
        await pubsub.subscribe(topic, marker.cb);
        await pubsub.publish(topic, event(1));
        await pubsub.publish(topic, event(2));
        await until(subject, 'both events at both', () => marker.events.length === 2 && twice.events.length >= 2);
        await pubsub.unsubscribe(topic, twice.cb);
        await pubsub.publish(topic, event(3));
        await until(subject, 'the third at the marker', () => marker.events.length === 3);
        expect(numbers(twice.events)).toEqual([1, 2]);
      });
    }

    if (subject.retains) {
      it("a later 'earliest' subscriber of a topic others follow gets what was published before it, once, then live ones", async () => {
        const pubsub = subject.instance();
        const topic = freshTopic('later-earliest');
        const [early, late] = [recorder(), recorder()];
        await pubsub.subscribe(topic, early.cb);
        await pubsub.publish(topic, event(1));
        await pubsub.publish(topic, event(2));
        await until(subject, 'the first two', () => early.events.length === 2);
        await pubsub.subscribe(topic, late.cb);
        await pubsub.publish(topic, event(3));
        await until(subject, 'three at both', () => early.events.length === 3 && late.events.length === 3);
        expect([numbers(early.events), numbers(late.events)]).toEqual([[1, 2, 3], [1, 2, 3]]);
      });

      it("a late subscriber gets the retained events first, in order, then live ones ('earliest', the default; and subscribeWithReplay)", async () => {
        const pubsub = subject.instance();
        const topic = freshTopic('replay');
        for (let n = 0; n < 5; n++) await pubsub.publish(topic, event(n));
        const [plain, replay] = [recorder(), recorder()];
        await pubsub.subscribe(topic, plain.cb);
        await pubsub.subscribeWithReplay(topic, replay.cb);
        await pubsub.publish(topic, event(5));
        await until(subject, 'six events each', () => plain.events.length === 6 && replay.events.length === 6);
        expect(numbers(plain.events)).toEqual([0, 1, 2, 3, 4, 5]);
        expect(numbers(replay.events)).toEqual([0, 1, 2, 3, 4, 5]);
      });
    }
  });
}
