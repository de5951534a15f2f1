/**
 * Fan-out subscriptions of one topic in one process share one watch and one replay read, so what etcd sends a
 * process does not grow with how many local callbacks subscribe (Mastra subscribes to its discovery topics once per
 * thread it runs) — measured by etcd itself: its open watchers and the bytes it sent its clients. And a later local
 * subscriber still gets what a subscriber of its own would: the retained backlog with `'earliest'`, only what
 * follows with `'latest'`, no gap, no duplicate, whether the topic's retained events are kept in memory or read again.
 */
import type { Event, EventCallback } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { EtcdCore } from '../../src/core/etcd-core.js';
import { EtcdEventBus } from '../../src/pubsub/etcd-event-bus.js';
import { resolveEventOptions } from '../../src/pubsub/resolve-options.js';
import { waitFor } from '../support/wait.js';
import { clusterMetric } from './support/member-metrics.js';
import { collector, usePubSubCluster, type Namespace } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster();

const n = (e: Event) => (e.data as { n: number }).n;
const sentBytes = () => clusterMetric(etcd.cluster, 'etcd_network_client_grpc_sent_bytes_total');
const watchers = () => clusterMetric(etcd.cluster, 'etcd_debugging_mvcc_watcher_total');
const event = (k: number) => ({ type: 'stream-part', runId: 'r', data: { n: k, text: 'x'.repeat(375) } });

describe('fan-out subscriptions of one topic in one process', () => {
  it('share one watch: what etcd sends the process per event does not grow from 1 to 200 subscriptions', async () => {
    const space = etcd.namespace();
    const publisher = etcd.pubsub(space);
    const EVENTS = 40;
    const measure = async (subscriptions: number) => {
      const subscriber = etcd.pubsub(space);
      const watchersBefore = await watchers();
      try {
        const topic = `shared-${subscriptions}`;
        const got = Array.from({ length: subscriptions }, () => collector());
        for (const c of got) await subscriber.subscribe(topic, c.cb, { startFrom: 'latest' });
        const watchersAdded = (await watchers()) - watchersBefore;
        const before = await sentBytes();
        for (let k = 0; k < EVENTS; k++) await publisher.publish(topic, event(k));
        await waitFor(`${subscriptions} subscriptions to get ${EVENTS} events`, () => got.every((c) => c.events.length === EVENTS), { timeoutMs: 30_000 });
        const perEvent = ((await sentBytes()) - before) / EVENTS;
        for (const c of got) expect(c.events.map(n)).toEqual([...Array(EVENTS).keys()]);
        return { watchersAdded, perEvent };
      } finally {
        await subscriber.close();
        // etcd drops a closed watch a moment later: the next count must not see this one end while it measures.
        await waitFor('the closed subscriber\'s watch to end', async () => (await watchers()) <= watchersBefore, { timeoutMs: 10_000 });
      }
    };
    const one = await measure(1);
    const many = await measure(200);
    console.log(`bytes etcd sent per event: ${one.perEvent.toFixed(0)} with 1 subscription, ${many.perEvent.toFixed(0)} with 200; watchers: ${one.watchersAdded}, ${many.watchersAdded}`);
    expect(one.watchersAdded).toBe(1);
    expect(many.watchersAdded).toBe(1);
    expect(many.perEvent).toBeLessThan(2 * one.perEvent);
  });

  it("share one replay: 200 'earliest' subscribes read the topic's retained events once", async () => {
    const space = etcd.namespace();
    const publisher = etcd.pubsub(space);
    const RETAINED = 100;
    for (let k = 0; k < RETAINED; k++) await publisher.publish('backlog', event(k));
    const raw = etcd.rawClient();
    const prefix = `${space.eventPrefix}t/backlog/e/`;
    const { kvs } = await raw.kv.range({ key: Buffer.from(prefix), range_end: Buffer.from(`${prefix.slice(0, -1)}0`) });
    const retainedBytes = kvs.reduce((sum, kv) => sum + kv.key.length + kv.value.length, 0);

    const subscriber = etcd.pubsub(space);
    const got = Array.from({ length: 200 }, () => collector());
    const before = await sentBytes();
    for (const c of got) await subscriber.subscribe('backlog', c.cb);
    await waitFor('every subscription to get the backlog', () => got.every((c) => c.events.length === RETAINED), { timeoutMs: 30_000 });
    const bytes = (await sentBytes()) - before;
    console.log(`200 'earliest' subscribes of a topic retaining ${retainedBytes} bytes: etcd sent ${bytes} bytes`);
    for (const c of got) expect(c.events.map(n)).toEqual([...Array(RETAINED).keys()]);
    expect(bytes).toBeLessThan(3 * retainedBytes);

    await publisher.publish('backlog', event(RETAINED));
    await waitFor('the live event at every subscription', () => got.every((c) => c.events.length === RETAINED + 1), { timeoutMs: 15_000 });
  });
});

/** An event bus of its own, with the retained window as the seam says. */
function bus(space: Namespace, retainedWindowBytes: number | undefined) {
  const core = new EtcdCore({ hosts: etcd.cluster.endpoints(), prefix: space.prefix });
  const eventBus = new EtcdEventBus(core, resolveEventOptions({ eventPrefix: space.eventPrefix }, space.prefix), undefined, { retainedWindowBytes });
  return {
    subscribe: (topic: string, cb: EventCallback, options?: { startFrom?: 'earliest' | 'latest' }) => eventBus.subscribe(topic, cb, options),
    close: async () => {
      await eventBus.close();
      core.close(new Error('test over'));
    },
  };
}

describe('a later subscriber of a shared topic', () => {
  it.each([
    ['kept in memory', undefined],
    ['read again from etcd', 0],
  ] as const)("gets the backlog ('earliest') or only what follows ('latest') while a publisher runs: no gap, no duplicate (retained events %s)", async (_how, windowBytes) => {
    const space = etcd.namespace();
    const publisher = etcd.pubsub(space);
    const subscriber = bus(space, windowBytes);
    try {
      const TOTAL = 300;
      const first = collector();
      await subscriber.subscribe('running', first.cb);
      let started = 0;
      const publishing = (async () => {
        for (let k = 0; k < TOTAL; k++) {
          started = k + 1;
          await publisher.publish('running', event(k));
        }
      })();
      await first.until(50, 30_000);
      // Two 'earliest' subscribers at once (one shared read when it is needed), while events keep coming.
      const [early1, early2] = [collector(), collector()];
      await Promise.all([subscriber.subscribe('running', early1.cb), subscriber.subscribe('running', early2.cb)]);
      await first.until(150, 30_000);
      const late = collector();
      await subscriber.subscribe('running', late.cb, { startFrom: 'latest' });
      // Every event whose publish began after the 'latest' subscribe resolved must reach it.
      const boundary = started;
      await publishing;
      for (const c of [first, early1, early2]) {
        await c.until(TOTAL, 30_000);
        expect(c.events.map(n)).toEqual([...Array(TOTAL).keys()]);
      }
      await waitFor('the late subscriber to get the last event', () => late.events.some((e) => n(e) === TOTAL - 1), { timeoutMs: 30_000 });
      const tail = late.events.map(n);
      expect(tail[0]).toBeLessThanOrEqual(boundary);
      expect(tail).toEqual([...Array(TOTAL - tail[0]!).keys()].map((k) => k + tail[0]!));
    } finally {
      await subscriber.close();
    }
  });
});
