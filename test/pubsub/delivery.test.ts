/**
 * EtcdPubSub on a real 3-member cluster: fan-out across processes, order, replay and `startFrom`, `localOnly`,
 * fan-out ack/nack, `clearTopic`, and what it refuses.
 */
import type { Event, EventCallback } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { EventTooLargeError } from '../../src/errors/event-too-large.js';
import { EtcdPubSub } from '../../src/mastra/etcd-pubsub.js';
import { waitFor } from '../support/wait.js';
import { collector, usePubSubCluster } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster();

const data = (e: Event) => e.data as { n: number; from?: string; lane?: number };
const prefixEnd = (p: string) => Buffer.from(p.slice(0, -1) + String.fromCharCode(p.charCodeAt(p.length - 1) + 1));

let raw: ReturnType<typeof etcd.rawClient> | undefined;
async function keysUnder(prefix: string): Promise<number> {
  raw ??= etcd.rawClient();
  const res = await raw.kv.range({ key: Buffer.from(prefix), range_end: prefixEnd(prefix), count_only: true });
  return Number(res.count);
}

describe('fan-out', () => {
  it('every subscriber in every process gets every event once, in one topic order that keeps each publisher’s order', async () => {
    const space = etcd.namespace();
    const [a, b, c] = await etcd.processes(space, ['a', 'b', 'c']);
    for (const p of [a!, b!, c!]) await p.subscribe('orders');
    // Two processes publish at once, four concurrent lanes each.
    a!.startPublishing('orders', 120, { concurrency: 4 });
    b!.startPublishing('orders', 120, { concurrency: 4 });
    const published = await Promise.all([a!.published('orders'), b!.published('orders')]);
    expect(published.map((p) => p.failed)).toEqual([0, 0]);

    for (const p of [a!, b!, c!]) await waitFor(`${p.id} to get 240 events`, () => p.deliveries('orders').length >= 240, { timeoutMs: 30_000 });
    const sequences = [a!, b!, c!].map((p) => p.deliveries('orders').map((d) => `${d.from}/${d.n}`));
    for (const seq of sequences) {
      expect(seq).toHaveLength(240);
      expect(new Set(seq).size).toBe(240);
    }
    // One topic order for everyone …
    expect(sequences[1]).toEqual(sequences[0]);
    expect(sequences[2]).toEqual(sequences[0]);
    // … in which every publisher lane's events come in the order they were published.
    const lanes = new Map<string, number>();
    for (const d of a!.deliveries('orders')) {
      const lane = `${d.from}/${d.lane}`;
      expect(d.n).toBeGreaterThan(lanes.get(lane) ?? -1);
      lanes.set(lane, d.n);
    }
  });

  it('per-publisher order holds while one member drops its answers (commits whose callers time out and resend)', async () => {
    const space = etcd.namespace();
    const publisher = etcd.pubsub(space);
    const subscriber = etcd.pubsub(space);
    const got = collector();
    await subscriber.subscribe('ambiguous', got.cb);
    await etcd.cluster.dropResponses(0, true);
    try {
      await Promise.all(
        [0, 1, 2].map(async (lane) => {
          for (let n = 0; n < 40; n++) await publisher.publish('ambiguous', { type: 't', runId: 'r', data: { lane, n } });
        }),
      );
    } finally {
      await etcd.cluster.dropResponses(0, false);
    }
    await got.until(120);
    const seen = got.events.map((e) => `${data(e).lane}/${data(e).n}`);
    expect(new Set(seen).size).toBe(120);
    for (const lane of [0, 1, 2]) expect(got.events.filter((e) => data(e).lane === lane).map((e) => data(e).n)).toEqual([...Array(40).keys()]);
  });
});

describe('replay and startFrom', () => {
  it("'earliest' (the default) replays the retained window, then goes live with no gap and no duplicate while a publisher runs", async () => {
    const space = etcd.namespace();
    const [publisher] = await etcd.processes(space, ['publisher']);
    const subscriber = etcd.pubsub(space);
    publisher!.startPublishing('replay', 300);
    await waitFor('some events to be retained', async () => (await keysUnder(`${space.eventPrefix}t/replay/e/`)) >= 50, { timeoutMs: 15_000 });
    const got = collector();
    await subscriber.subscribe('replay', got.cb);
    expect((await publisher!.published('replay')).failed).toBe(0);
    await got.until(300);
    expect(got.events.map((e) => data(e).n)).toEqual([...Array(300).keys()]);
  });

  it("'latest' delivers only what is published after subscribe resolved — and subscribe resolves live", async () => {
    const space = etcd.namespace();
    const [publisher] = await etcd.processes(space, ['publisher']);
    const subscriber = etcd.pubsub(space);
    await publisher!.publish('late', 10);
    const got = collector();
    await subscriber.subscribe('late', got.cb, { startFrom: 'latest' });
    await publisher!.publish('late', 5);
    await got.until(5);
    expect(got.events.map((e) => data(e).n)).toEqual([0, 1, 2, 3, 4]);
    // Nothing of the first ten arrives later either: the first event after them is the last one delivered.
    const all = collector();
    await subscriber.subscribe('late', all.cb);
    await all.until(15);
    expect(got.events).toHaveLength(5);
  });

  it('getHistory returns the retained events in topic order from an offset', async () => {
    const pubsub = etcd.pubsub();
    for (let n = 0; n < 5; n++) await pubsub.publish('history', { type: 't', runId: 'r', data: { n } });
    expect((await pubsub.getHistory('history')).map((e) => data(e).n)).toEqual([0, 1, 2, 3, 4]);
    expect((await pubsub.getHistory('history', 3)).map((e) => data(e).n)).toEqual([3, 4]);
  });

  it('an event arrives as published: fresh id and createdAt, the publisher’s fields, Dates and Errors intact', async () => {
    const space = etcd.namespace();
    const [a, b] = [etcd.pubsub(space), etcd.pubsub(space)];
    const got = collector();
    await b.subscribe('shape', got.cb);
    const at = new Date('2026-01-01T00:00:00Z');
    await a.publish('shape', { type: 'stream-part', runId: 'run-1', index: 4, data: { at, error: new Error('model failed'), missing: undefined } });
    await got.until(1);
    const [event] = got.events;
    expect(event).toMatchObject({ type: 'stream-part', runId: 'run-1', index: 4, deliveryAttempt: 1 });
    expect(event!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(event!.createdAt).toBeInstanceOf(Date);
    expect(event!.data.at).toEqual(at);
    expect(event!.data.error).toBeInstanceOf(Error);
    expect(event!.data.error.message).toBe('model failed');
    expect('missing' in event!.data).toBe(true);
  });
});

describe('localOnly', () => {
  it('never reaches etcd, keeps object identity, reaches every local fan-out subscriber and one group member, whatever its size', async () => {
    const space = etcd.namespace();
    const pubsub = etcd.pubsub(space);
    const other = etcd.pubsub(space);
    raw ??= etcd.rawClient();
    const seenInEtcd: string[] = [];
    const watcher = await raw.watch().prefix(space.eventPrefix).create();
    watcher.on('put', (kv) => seenInEtcd.push(kv.key.toString()));
    try {
      const fanA = collector();
      const fanB = collector();
      const remote = collector();
      const groupGot: string[] = [];
      await pubsub.subscribe('workflow.events.v2.run-1', fanA.cb);
      await pubsub.subscribe('workflow.events.v2.run-1', fanB.cb);
      await other.subscribe('workflow.events.v2.run-1', remote.cb);
      const member = (name: string): EventCallback => (_e, ack) => void (groupGot.push(name), ack?.());
      await pubsub.subscribe('workflow.events.v2.run-1', member('m1'), { group: 'G' });
      await pubsub.subscribe('workflow.events.v2.run-1', member('m2'), { group: 'G' });
      const payload = { blob: 'x'.repeat(5 * 1024 * 1024), live: new Map([['k', () => 1]]) };
      await pubsub.publish('workflow.events.v2.run-1', { type: 'step', runId: 'r', data: payload }, { localOnly: true });
      await pubsub.publish('workflow.events.v2.run-1', { type: 'step', runId: 'r', data: payload }, { localOnly: true });
      expect(fanA.events.map((e) => e.data === payload)).toEqual([true, true]);
      expect(fanB.events.map((e) => e.data === payload)).toEqual([true, true]);
      expect(groupGot.sort()).toEqual(['m1', 'm2']);
      // A marker published through etcd afterwards is seen by the watch; nothing local was before it.
      await pubsub.publish('marker', { type: 'm', runId: 'r', data: null });
      await waitFor('the marker in etcd', () => seenInEtcd.some((key) => key.includes('/t/marker/e/')), { timeoutMs: 5000 });
      // The only event written is the marker (the group's member key is written, as for any group).
      expect(seenInEtcd.filter((key) => key.includes('/e/')).every((key) => key.includes('/t/marker/e/'))).toBe(true);
      expect(remote.events).toEqual([]);
    } finally {
      await watcher.cancel();
    }
  });
});

describe('fan-out ack and nack', () => {
  it('nack (or a rejected callback) redelivers in this process with attempt + 1, up to maxDeliveryAttempts', async () => {
    const space = etcd.namespace();
    const pubsub = etcd.pubsub(space, { maxDeliveryAttempts: 3, redeliveryDelayMs: 10 });
    const nacked: number[] = [];
    const rejected: number[] = [];
    await pubsub.subscribe('nack', (e, _ack, nack) => void (nacked.push(e.deliveryAttempt!), nack!()));
    await pubsub.subscribe('nack', async (e) => {
      rejected.push(e.deliveryAttempt!);
      throw new Error('handler failed');
    });
    await pubsub.publish('nack', { type: 't', runId: 'r', data: null });
    await waitFor('three attempts each', () => nacked.length === 3 && rejected.length === 3, { timeoutMs: 5000 });
    // The cap holds: a later event gets through while the first is not offered a fourth time.
    const after = collector();
    await pubsub.subscribe('nack', after.cb, { startFrom: 'latest' });
    await pubsub.publish('nack', { type: 't', runId: 'r', data: null });
    await after.until(1);
    await waitFor('the second event’s three attempts', () => nacked.length === 6, { timeoutMs: 5000 });
    expect(nacked).toEqual([1, 2, 3, 1, 2, 3]);
  });
});

describe('clearTopic', () => {
  it('deletes the events and claims of exactly that topic, keeps group members, and new events flow after it', async () => {
    const space = etcd.namespace();
    const pubsub = etcd.pubsub(space);
    await pubsub.subscribe('jobs', (_e, ack) => void ack?.(), { group: 'workers' });
    for (let n = 0; n < 5; n++) await pubsub.publish('jobs', { type: 't', runId: 'r', data: { n } });
    await pubsub.publish('jobs.reply', { type: 't', runId: 'r', data: { n: 0 } });
    await waitFor('claims to be written', async () => (await keysUnder(`${space.eventPrefix}t/jobs/c/`)) === 5, { timeoutMs: 10_000 });

    await pubsub.clearTopic('jobs');

    expect(await keysUnder(`${space.eventPrefix}t/jobs/e/`)).toBe(0);
    expect(await keysUnder(`${space.eventPrefix}t/jobs/c/`)).toBe(0);
    expect(await keysUnder(`${space.eventPrefix}t/jobs/m/`)).toBe(1);
    expect(await keysUnder(`${space.eventPrefix}t/jobs.reply/e/`)).toBe(1);
    expect(await pubsub.getHistory('jobs')).toEqual([]);
  });

  it('never rejects, even with etcd unreachable', async () => {
    const unreachable = new EtcdPubSub({ hosts: '127.0.0.1:1', prefix: 'x/lease/', deadlineMs: 300, attemptTimeoutMs: 100 });
    try {
      await expect(unreachable.clearTopic('t')).resolves.toBeUndefined();
      await expect(unreachable.flush()).resolves.toBeUndefined();
    } finally {
      await unreachable.close();
    }
  });
});

describe('what publish and subscribe refuse', () => {
  it('an oversized event is rejected naming topic and size, and nothing is written', async () => {
    const space = etcd.namespace();
    const pubsub = etcd.pubsub(space, { maxEventBytes: 64 * 1024 });
    raw ??= etcd.rawClient();
    const before = (await raw.kv.range({ key: Buffer.from('x') })).header.revision;
    const error = await pubsub.publish('big', { type: 't', runId: 'r', data: 'x'.repeat(70 * 1024) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventTooLargeError);
    expect(error).toMatchObject({ code: 'ELEASE_EVENT_TOO_LARGE', topic: 'big', limit: 64 * 1024 });
    expect((error as EventTooLargeError).bytes).toBeGreaterThan(70 * 1024);
    expect((error as Error).message).toMatch(/topic "big" is 7\d \d{3} bytes encoded; at most 65 536 \(maxEventBytes\)/);
    expect((await raw.kv.range({ key: Buffer.from('x') })).header.revision).toBe(before);
    expect(await keysUnder(space.eventPrefix)).toBe(0);
  });

  it('bad topics, events, callbacks and options are refused naming the parameter, before anything is sent', async () => {
    const pubsub = etcd.pubsub();
    const event = { type: 't', runId: 'r', data: null };
    await expect(pubsub.publish('', event)).rejects.toMatchObject({ code: 'ELEASE_INVALID_ARGUMENT', parameter: 'topic' });
    await expect(pubsub.publish('a\uD800', event)).rejects.toMatchObject({ parameter: 'topic' });
    await expect(pubsub.publish('t', null as never)).rejects.toMatchObject({ parameter: 'event' });
    await expect(pubsub.publish('t', { runId: 'r', data: 1 } as never)).rejects.toMatchObject({ parameter: 'event.type' });
    await expect(pubsub.subscribe('t', 'cb' as never)).rejects.toMatchObject({ parameter: 'cb' });
    await expect(pubsub.subscribe('t', () => {}, { group: '' })).rejects.toMatchObject({ parameter: 'options.group' });
    await expect(pubsub.subscribe('t', () => {}, { startFrom: 'middle' as never })).rejects.toMatchObject({ parameter: 'options.startFrom' });
    await pubsub.close();
    await expect(pubsub.publish('t', event)).rejects.toMatchObject({ code: 'ELEASE_CLOSED' });
    await expect(pubsub.subscribe('t', () => {})).rejects.toMatchObject({ code: 'ELEASE_CLOSED' });
  });
});
