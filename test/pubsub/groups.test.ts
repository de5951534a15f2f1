/**
 * Consumer groups across processes on a real cluster: exactly one member gets each event, a SIGKILLed member's
 * events go to a survivor, nack redelivers up to the cap, and an acked event is never offered again.
 */
import type { EventCallback } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { waitFor } from '../support/wait.js';
import { collector, usePubSubCluster } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster();

/** Session TTL of the worker processes: how soon a dead member's claims move. */
const MEMBER_TTL_MS = 3000;

describe('consumer groups', () => {
  it('a group delivers each event to exactly one member across processes, spread evenly', async () => {
    const space = etcd.namespace();
    const [a, b, c] = await etcd.processes(space, ['a', 'b', 'c']);
    for (const p of [a!, b!, c!]) await p.subscribe('work', { group: 'workers' });
    const published = await a!.publish('work', 600, { concurrency: 8 });
    expect(published.failed).toBe(0);

    const delivered = () => [a!, b!, c!].flatMap((p) => p.deliveries('work'));
    await waitFor('every event delivered', () => new Set(delivered().map((d) => d.n)).size === 600, { timeoutMs: 60_000, intervalMs: 50 });
    // Claims settle before a redelivery could happen (none is expected: everyone acks).
    const all = delivered();
    expect(all.filter((d) => d.attempt !== 1)).toEqual([]);
    expect(all).toHaveLength(600);
    for (const p of [a!, b!, c!]) {
      const share = p.deliveries('work').length;
      expect(share).toBeGreaterThan(600 / 3 / 2);
      expect(share).toBeLessThan((600 / 3) * 2);
    }
  });

  it("a SIGKILLed consumer's claimed events go to a survivor with deliveryAttempt 2, within the member TTL + 2 s", async () => {
    const space = etcd.namespace();
    const env = { GROUP_MEMBER_TTL_MS: String(MEMBER_TTL_MS) };
    const [victim, survivor] = await etcd.processes(space, ['victim', 'survivor'], env);
    await victim!.subscribe('jobs', { group: 'workers', handling: 'hold' });
    await survivor!.subscribe('jobs', { group: 'workers' });
    expect((await survivor!.publish('jobs', 40)).failed).toBe(0);
    await waitFor('every event claimed', () => victim!.deliveries('jobs').length + survivor!.deliveries('jobs').length >= 40, { timeoutMs: 30_000 });
    const held = victim!.deliveries('jobs').map((d) => d.n);
    expect(held.length).toBeGreaterThan(0);

    const killedAt = performance.timeOrigin + performance.now();
    await victim!.kill();
    const redelivered = () => survivor!.deliveries('jobs').filter((d) => held.includes(d.n));
    await waitFor('the victim’s events at the survivor', () => redelivered().length === held.length, { timeoutMs: MEMBER_TTL_MS + 10_000, intervalMs: 20 });
    for (const d of redelivered()) {
      expect(d.attempt).toBe(2);
      expect(d.at - killedAt).toBeLessThan(MEMBER_TTL_MS + 2000 + 1000); // + one second for a busy 2-core machine
    }
    // Nothing else was delivered twice.
    const ns = survivor!.deliveries('jobs').map((d) => d.n);
    expect(new Set(ns).size).toBe(ns.length);
    expect(new Set([...ns, ...held]).size).toBe(40);
  });

  it('an acked event is never offered to a member that joins later; new events are shared with it', async () => {
    const space = etcd.namespace();
    const first = etcd.pubsub(space);
    const late = etcd.pubsub(space);
    const early = collector();
    await first.subscribe('once', early.cb, { group: 'g' });
    for (let n = 0; n < 20; n++) await first.publish('once', { type: 't', runId: 'r', data: { n } });
    await early.until(20);
    await first.flush(); // the acks are written

    const joined = collector();
    await late.subscribe('once', joined.cb, { group: 'g' });
    for (let n = 20; n < 40; n++) await late.publish('once', { type: 't', runId: 'r', data: { n } });
    await waitFor('the new events', () => early.events.length + joined.events.length >= 40, { timeoutMs: 15_000 });
    const lateNs = joined.events.map((e) => (e.data as { n: number }).n);
    expect(lateNs.filter((n) => n < 20)).toEqual([]);
    expect(lateNs.length).toBeGreaterThan(0);
    const allNs = [...early.events, ...joined.events].map((e) => (e.data as { n: number }).n);
    expect(new Set(allNs).size).toBe(40);
    expect(allNs).toHaveLength(40);
  });

  it('nack redelivers with attempt + 1 up to maxDeliveryAttempts, then drops the event (a rejection is a nack)', async () => {
    const space = etcd.namespace();
    const warnings: string[] = [];
    const pubsub = etcd.pubsub(space, { maxDeliveryAttempts: 3, redeliveryDelayMs: 20, logger: { warn: (m) => warnings.push(m) } });
    const attempts: number[] = [];
    const cb: EventCallback = async (event) => {
      attempts.push(event.deliveryAttempt!);
      throw new Error('cannot handle it');
    };
    await pubsub.subscribe('retry', cb, { group: 'g' });
    await pubsub.publish('retry', { type: 't', runId: 'r', data: null });
    await waitFor('three attempts', () => attempts.length >= 3, { timeoutMs: 10_000 });
    await waitFor('the drop warning', () => warnings.some((w) => w.includes('dropped after its last delivery attempt')), { timeoutMs: 10_000 });
    // A later event still flows, and the dropped one is not offered again.
    await pubsub.unsubscribe('retry', cb);
    const next = collector();
    await pubsub.subscribe('retry', next.cb, { group: 'g' });
    await pubsub.publish('retry', { type: 't', runId: 'r', data: { n: 1 } });
    await next.until(1);
    expect(attempts).toEqual([1, 2, 3]);
    expect(next.events.map((e) => e.data)).toEqual([{ n: 1 }]);
  });

  it('the redelivery after a nack keeps the event id (Mastra counts attempts by it) and may go to another process', async () => {
    const space = etcd.namespace();
    const [a, b] = await etcd.processes(space, ['a', 'b']);
    await a!.subscribe('flaky', { group: 'g', handling: 'nack-first' });
    await b!.subscribe('flaky', { group: 'g', handling: 'nack-first' });
    expect((await a!.publish('flaky', 20)).failed).toBe(0);
    const all = () => [...a!.deliveries('flaky'), ...b!.deliveries('flaky')];
    await waitFor('every event delivered twice', () => all().length >= 40, { timeoutMs: 30_000 });
    for (let n = 0; n < 20; n++) {
      const tries = all().filter((d) => d.n === n);
      expect(tries.map((d) => d.attempt).sort()).toEqual([1, 2]);
      expect(new Set(tries.map((d) => d.id)).size).toBe(1);
    }
  });
});
