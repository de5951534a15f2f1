/**
 * Subscriptions as Mastra's Redis backend has them, on a real cluster: one per (topic, callback) — subscribing the
 * pair again is the same subscription, and one unsubscribe ends it (fan-out, grouped, localOnly) — and an
 * unsubscribe that overtakes its own subscribe waits for it and undoes it: no group member is left registered.
 */
import type { EventCallback } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { waitFor } from '../support/wait.js';
import { clusterMetric } from './support/member-metrics.js';
import { collector, usePubSubCluster } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster();

const event = (k: number) => ({ type: 't', runId: 'r', data: { n: k } });
const n = (e: { data: unknown }) => (e.data as { n: number }).n;
const prefixEnd = (p: string) => Buffer.from(p.slice(0, -1) + String.fromCharCode(p.charCodeAt(p.length - 1) + 1));

describe('the same (topic, callback) subscribed twice', () => {
  it('fan-out: each event comes once, and one unsubscribe ends it', async () => {
    const pubsub = etcd.pubsub();
    const twice = collector();
    const marker = collector();
    await pubsub.subscribe('twice', twice.cb);
    await pubsub.subscribe('twice', twice.cb);
    await pubsub.subscribe('twice', marker.cb);
    for (let k = 0; k < 3; k++) await pubsub.publish('twice', event(k));
    await marker.until(3);
    await twice.until(3);
    // A fourth event behind them: whatever the first three brought has arrived once it has.
    await pubsub.publish('twice', event(3));
    await marker.until(4);
    await twice.until(4);
    expect(twice.events.map(n)).toEqual([0, 1, 2, 3]);

    await pubsub.unsubscribe('twice', twice.cb);
    await pubsub.publish('twice', event(4));
    await marker.until(5);
    expect(twice.events.map(n)).toEqual([0, 1, 2, 3]);
  });

  it('grouped: one unsubscribe ends it, and the group’s events go to its other member', async () => {
    const space = etcd.namespace();
    const [pubsub, other] = [etcd.pubsub(space), etcd.pubsub(space)];
    const twice = collector();
    const elsewhere = collector();
    await pubsub.subscribe('jobs', twice.cb, { group: 'workers' });
    await pubsub.subscribe('jobs', twice.cb, { group: 'workers' });
    await other.subscribe('jobs', elsewhere.cb, { group: 'workers' });
    await pubsub.unsubscribe('jobs', twice.cb);
    for (let k = 0; k < 12; k++) await other.publish('jobs', event(k));
    await elsewhere.until(12);
    expect(twice.events).toEqual([]);
    expect(elsewhere.events.map(n).sort((a, b) => a - b)).toEqual([...Array(12).keys()]);
  });

  it('localOnly: each event comes once, and one unsubscribe ends it', async () => {
    const pubsub = etcd.pubsub();
    const twice = collector();
    await pubsub.subscribe('local', twice.cb);
    await pubsub.subscribe('local', twice.cb);
    // localOnly delivery is synchronous: what the publish delivers has arrived when it resolves.
    await pubsub.publish('local', event(0), { localOnly: true });
    expect(twice.events.map(n)).toEqual([0]);
    await pubsub.unsubscribe('local', twice.cb);
    await pubsub.publish('local', event(1), { localOnly: true });
    expect(twice.events.map(n)).toEqual([0]);
  });

  it('a second subscribe of the pair with other options is the same subscription', async () => {
    const pubsub = etcd.pubsub();
    const got = collector();
    await pubsub.publish('options', event(0));
    await pubsub.subscribe('options', got.cb);
    await got.until(1);
    await pubsub.subscribe('options', got.cb, { startFrom: 'latest' });
    await pubsub.publish('options', event(1));
    await got.until(2);
    await pubsub.publish('options', event(2));
    await got.until(3);
    expect(got.events.map(n)).toEqual([0, 1, 2]);
  });
});

describe('an unsubscribe that overtakes its own subscribe', () => {
  it('grouped: waits for the subscribe and undoes it — no member stays registered, the others’ events do not wait for it', async () => {
    const space = etcd.namespace();
    // Another member that waits a minute for a preferred member: an event the ghost of a member were preferred for
    // would not reach it within the test.
    const [pubsub, other] = [etcd.pubsub(space), etcd.pubsub(space, { claimTimeoutMs: 60_000 })];
    const remaining = collector();
    await other.subscribe('overtaken', remaining.cb, { group: 'workers' });
    const cb: EventCallback = (_e, ack) => void ack?.();
    await Promise.allSettled([pubsub.subscribe('overtaken', cb, { group: 'workers' }), pubsub.unsubscribe('overtaken', cb)]);

    const raw = etcd.rawClient();
    const members = `${space.eventPrefix}t/overtaken/m/workers/`;
    const memberKeys = async () => (await raw.kv.range({ key: Buffer.from(members), range_end: prefixEnd(members) })).kvs.map((kv) => kv.value.toString());
    await waitFor('only the other member to be registered', async () => (await memberKeys()).length === 1, { timeoutMs: 15_000 });

    for (let k = 0; k < 12; k++) await other.publish('overtaken', event(k));
    await remaining.until(12, 15_000);
    expect(remaining.events.map(n).sort((a, b) => a - b)).toEqual([...Array(12).keys()]);
  });

  it('fan-out: nothing reaches the callback, and its watch is gone', async () => {
    const pubsub = etcd.pubsub();
    const watchers = () => clusterMetric(etcd.cluster, 'etcd_debugging_mvcc_watcher_total');
    const marker = collector();
    await pubsub.subscribe('overtaken-fanout-marker', marker.cb);
    const before = await watchers();
    const got = collector();
    await Promise.allSettled([pubsub.subscribe('overtaken-fanout', got.cb), pubsub.unsubscribe('overtaken-fanout', got.cb)]);
    await pubsub.publish('overtaken-fanout', event(0));
    await pubsub.publish('overtaken-fanout-marker', event(0));
    await marker.until(1);
    expect(got.events).toEqual([]);
    await waitFor('its watch to be canceled', async () => (await watchers()) === before, { timeoutMs: 10_000 });
  });
});
