import { describe, expect, it } from 'vitest';

import { event, freshTopic, numbers, recorder, until } from './helpers.js';
import type { ConformanceSubject } from './subject.js';

/**
 * Subscribers with a group compete: each event goes to one of them (Mastra's types.d.ts). `startFrom` is where a
 * newly created group begins; an existing group keeps its checkpoint.
 */
export function groupCases(subject: ConformanceSubject): void {
  describe('consumer groups', () => {
    it('each event goes to exactly one callback of a group, and both callbacks get some', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('group');
      const [a, b] = [recorder(), recorder()];
      await pubsub.subscribe(topic, a.cb, { group: 'workers' });
      await pubsub.subscribe(topic, b.cb, { group: 'workers' });
      for (let n = 0; n < 12; n++) await pubsub.publish(topic, event(n));
      await until(subject, '12 deliveries', () => a.events.length + b.events.length >= 12);
      await pubsub.flush();
      const ids = [...a.events, ...b.events].map((e) => e.id);
      expect(ids).toHaveLength(12);
      expect(new Set(ids).size).toBe(12);
      expect(a.events.length).toBeGreaterThan(0);
      expect(b.events.length).toBeGreaterThan(0);
    });

    if (subject.separateInstances) {
      it('across instances, each event goes to exactly one member', async () => {
        const instances = [subject.instance(), subject.instance(), subject.instance()];
        const topic = freshTopic('members');
        const recorders = instances.map(() => recorder());
        for (const [i, pubsub] of instances.entries()) await pubsub.subscribe(topic, recorders[i]!.cb, { group: 'workers' });
        for (let n = 0; n < 30; n++) await instances[0]!.publish(topic, event(n));
        const all = () => recorders.flatMap((r) => r.events);
        await until(subject, '30 deliveries', () => all().length >= 30);
        await Promise.all(instances.map((p) => p.flush()));
        expect(numbers(all()).sort((x, y) => x - y)).toEqual([...Array(30).keys()]);
        expect(recorders.filter((r) => r.events.length > 0).length).toBeGreaterThan(1);
      });
    }

    it('different groups on one topic each get every event', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('groups');
      const [a, b] = [recorder(), recorder()];
      await pubsub.subscribe(topic, a.cb, { group: 'group-a' });
      await pubsub.subscribe(topic, b.cb, { group: 'group-b' });
      await pubsub.publish(topic, event(1));
      await until(subject, 'both groups', () => a.events.length === 1 && b.events.length === 1);
    });

    it('a group and fan-out subscribers on one topic: each fan-out subscriber gets the event, the group once', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('mixed');
      const [f1, f2, g1, g2] = [recorder(), recorder(), recorder(), recorder()];
      await pubsub.subscribe(topic, f1.cb);
      await pubsub.subscribe(topic, f2.cb);
      await pubsub.subscribe(topic, g1.cb, { group: 'workers' });
      await pubsub.subscribe(topic, g2.cb, { group: 'workers' });
      await pubsub.publish(topic, event(1));
      await until(subject, 'every delivery', () => f1.events.length === 1 && f2.events.length === 1 && g1.events.length + g2.events.length === 1);
      await pubsub.flush();
      expect(g1.events.length + g2.events.length).toBe(1);
    });

    it('an unsubscribed member gets nothing more; the remaining one gets every event', async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('leave');
      const [gone, stays] = [recorder(), recorder()];
      await pubsub.subscribe(topic, gone.cb, { group: 'workers' });
      await pubsub.subscribe(topic, stays.cb, { group: 'workers' });
      await pubsub.unsubscribe(topic, gone.cb);
      for (let n = 0; n < 4; n++) await pubsub.publish(topic, event(n));
      await until(subject, 'four deliveries', () => stays.events.length === 4);
      expect(gone.events).toEqual([]);
    });

    it("a new group with startFrom 'latest' skips what was published before it, and gets what comes after", async () => {
      const pubsub = subject.instance();
      const topic = freshTopic('new-latest');
      await pubsub.publish(topic, event(1));
      const r = recorder();
      await pubsub.subscribe(topic, r.cb, { group: 'live-tail', startFrom: 'latest' });
      await pubsub.publish(topic, event(2));
      await until(subject, 'the live event', () => r.events.length >= 1);
      await pubsub.flush();
      expect(numbers(r.events)).toEqual([2]);
    });

    if (subject.retains) {
      it('a new group subscribing after events were published gets them: its backlog', async () => {
        const [publisher, consumer] = [subject.instance(), subject.instance()];
        const topic = freshTopic('backlog');
        await publisher.publish(topic, event(1));
        const r = recorder();
        await consumer.subscribe(topic, r.cb, { group: 'late' });
        await until(subject, 'the backlog', () => r.events.length === 1);
      });

      it("an existing group keeps its checkpoint: a member rejoining with startFrom 'latest' gets what was published while it was away", async () => {
        const pubsub = subject.instance();
        const topic = freshTopic('checkpoint');
        const [first, resumed] = [recorder(), recorder()];
        await pubsub.publish(topic, event(1));
        await pubsub.subscribe(topic, first.cb, { group: 'existing' });
        await until(subject, 'the first event', () => first.events.length === 1);
        await pubsub.unsubscribe(topic, first.cb);
        await pubsub.publish(topic, event(2));
        await pubsub.subscribe(topic, resumed.cb, { group: 'existing', startFrom: 'latest' });
        await until(subject, 'what was published while away', () => resumed.events.length === 1);
        await pubsub.flush();
        expect(numbers(resumed.events)).toEqual([2]);
      });
    }

    it('an acked event is never offered to the group again, nor to a member that joins later', async () => {
      const [first, late] = [subject.instance(), subject.instance()];
      const topic = freshTopic('acked');
      const [early, joined] = [recorder(), recorder()];
      await first.subscribe(topic, early.cb, { group: 'g' });
      for (let n = 0; n < 5; n++) await first.publish(topic, event(n));
      await until(subject, 'five deliveries', () => early.events.length === 5);
      await first.flush(); // the acks are written
      await late.subscribe(topic, joined.cb, { group: 'g' });
      for (let n = 5; n < 10; n++) await first.publish(topic, event(n));
      await until(subject, 'the new events', () => early.events.length + joined.events.length >= 10);
      await Promise.all([first.flush(), late.flush()]);
      expect(numbers([...early.events, ...joined.events]).sort((x, y) => x - y)).toEqual([...Array(10).keys()]);
      expect(numbers(joined.events).filter((n) => n < 5)).toEqual([]);
    });
  });
}
