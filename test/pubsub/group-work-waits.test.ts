/**
 * Grouped work waits for its group, on a real cluster: an event published for a consumer group stays past
 * `retentionMs` until a member acks it — while the group has no member at all (a deploy), and while its members are
 * busy — and is then moved back to retention; what the backlog bound (`groupBacklogMs`) deletes unfinished is logged
 * and counted by the group's live members.
 *
 * Retention is etcd's minimum (2 s) with a small bucket, so that an event left on its retention lease is gone within
 * about 3.5 s: the waits below are the passage of time these tests are about.
 */
import type { Event, EventCallback } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { EventKeys } from '../../src/pubsub/keys/event-keys.js';
import { recordingMeterProvider } from '../support/recording-meter-provider.js';
import { elapse, waitFor } from '../support/wait.js';
import { usePubSubCluster } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster();

const SHORT = { retentionMs: 2000, retentionBucketMs: 500 } as const;
/** Longer than any event on a 2 s retention lease lives (2 s + bucket + etcd's expiry sweep). */
const PAST_RETENTION_MS = 5000;

const job = (n: number) => ({ type: 'job', runId: 'r', data: { n } });
const numberOf = (event: Event) => (event.data as { n: number }).n;

function acking() {
  const got: number[] = [];
  const cb: EventCallback = (event, ack) => {
    got.push(numberOf(event));
    void ack?.();
  };
  return { got, cb };
}

describe('grouped work waits for its group', () => {
  it('a group with no member while 10 events are published, and for longer than retentionMs, gets all 10 when a member comes back', async () => {
    const space = etcd.namespace();
    const worker = etcd.pubsub(space, SHORT);
    const first = acking();
    await worker.subscribe('deploy', first.cb, { group: 'workers' });
    await worker.unsubscribe('deploy', first.cb);
    await worker.close(); // the old pod is gone

    const publisher = etcd.pubsub(space, SHORT);
    for (let n = 0; n < 10; n++) await publisher.publish('deploy', job(n));
    await elapse(PAST_RETENTION_MS); // the deploy: no member at all

    const replacement = etcd.pubsub(space, SHORT);
    const second = acking();
    await replacement.subscribe('deploy', second.cb, { group: 'workers' });
    await waitFor(`10 deliveries (have ${second.got.length})`, () => second.got.length >= 10, { timeoutMs: 10_000, intervalMs: 20 });
    console.info(`delivered after a deploy longer than retentionMs: ${second.got.length}/10`);
    expect(second.got).toEqual(Array.from({ length: 10 }, (_, n) => n));
  });

  it('a busy group (one event at a time, 250 ms each) delivers all 30 of a burst, though it takes longer than retentionMs', async () => {
    const pubsub = etcd.pubsub(etcd.namespace(), { ...SHORT, maxInFlightPerGroup: 1 });
    const got: number[] = [];
    await pubsub.subscribe(
      'busy',
      async (event, ack) => {
        got.push(numberOf(event));
        await elapse(250); // the handler's work
        await ack?.();
      },
      { group: 'workers' },
    );
    await Promise.all(Array.from({ length: 30 }, (_, n) => pubsub.publish('busy', job(n))));
    await waitFor(`30 deliveries (have ${got.length})`, () => got.length >= 30, { timeoutMs: 30_000, intervalMs: 50 });
    console.info(`busy group delivered ${new Set(got).size}/30`);
    expect(new Set(got).size).toBe(30);
  });

  it('a finished event goes back to retention: etcd holds it for the replay window and no longer', async () => {
    const space = etcd.namespace();
    // Long enough a window that an event acked at once is moved back to a retention lease, not deleted with its ack.
    const pubsub = etcd.pubsub(space, { ...SHORT, retentionMs: 4000 });
    const { got, cb } = acking();
    await pubsub.subscribe('finished', cb, { group: 'workers' });
    for (let n = 0; n < 5; n++) await pubsub.publish('finished', job(n));
    await waitFor('5 deliveries', () => got.length >= 5, { timeoutMs: 10_000, intervalMs: 20 });
    await pubsub.flush();
    const raw = etcd.rawClient();
    try {
      const events = new EventKeys(space.eventPrefix).events('finished').toString();
      // Still there for the fan-out replay window...
      expect(await raw.getAll().prefix(events).keys()).toHaveLength(5);
      // ...and gone past it (on the backlog bound, an hour, they would all still be there).
      await waitFor('the finished events to expire', async () => (await raw.getAll().prefix(events).keys()).length === 0, { timeoutMs: 10_000, intervalMs: 200 });
    } finally {
      raw.close();
    }
  });

  it('a fan-out subscriber that joins later replays the topic in publish order, finished (moved) events included', async () => {
    const space = etcd.namespace();
    const worker = etcd.pubsub(space, { retentionMs: 30_000 });
    const handled: number[] = [];
    // Acks the even events (moved back to retention with their acks) and holds the odd ones (where they were).
    await worker.subscribe('mixed', (event, ack) => void (handled.push(numberOf(event)), numberOf(event) % 2 === 0 && ack?.()), { group: 'workers' });
    for (let n = 0; n < 6; n++) await worker.publish('mixed', job(n));
    await waitFor('6 deliveries', () => handled.length >= 6, { timeoutMs: 10_000, intervalMs: 20 });
    await worker.flush();
    const reader = etcd.pubsub(space);
    expect((await reader.getHistory('mixed')).map(numberOf)).toEqual([0, 1, 2, 3, 4, 5]);
    const replayed: number[] = [];
    await reader.subscribe('mixed', (event) => void replayed.push(numberOf(event)));
    await waitFor('the replay', () => replayed.length >= 6, { timeoutMs: 10_000, intervalMs: 20 });
    expect(replayed).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('what the backlog bound deletes before any handler had it is warned about and counted, once each', async () => {
    const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const metrics = recordingMeterProvider();
    const pubsub = etcd.pubsub(etcd.namespace(), {
      ...SHORT,
      groupBacklogMs: 3000,
      maxInFlightPerGroup: 1,
      logger: { warn: (message, fields) => warnings.push({ message, fields }) },
      meterProvider: metrics.provider,
    });
    const held: number[] = [];
    const acks: Array<() => Promise<void>> = [];
    // Never acks: the one event it holds keeps the member at its limit, and the rest wait until the bound.
    await pubsub.subscribe('stuck', (event, ack) => void (held.push(numberOf(event)), acks.push(ack!)), { group: 'workers' });
    for (let n = 0; n < 6; n++) await pubsub.publish('stuck', job(n));
    // Events 1 to 5 never reached a handler: each is lost, said and counted once. Event 0 expires in its handler's
    // hands (the handler has it: not lost unseen).
    const expired = () => warnings.filter((w) => w.message === 'grouped event expired before its group finished it');
    await waitFor(`5 warnings (have ${expired().length})`, () => expired().length >= 5, { timeoutMs: 15_000, intervalMs: 100 });
    await elapse(1000); // a sixth warning, for the held event, would come with the others: that none does is the point
    const counted = metrics.records.filter((r) => r.name === 'lease_provider.pubsub.dropped_events' && r.attributes?.reason === 'backlog-expired');
    expect(held).toEqual([0]);
    expect(expired()).toHaveLength(5);
    expect(counted.reduce((n, r) => n + r.value, 0)).toBe(5);
    // The held event's ack, now that the bound deleted it: refused, not "finished".
    await expect(acks[0]!()).rejects.toMatchObject({ code: 'ELEASE_ACK_REFUSED', reason: 'expired', topic: 'stuck', group: 'workers' });
  });
});
