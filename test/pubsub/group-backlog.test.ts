/**
 * A consumer group working through a backlog, in one process on a real cluster: a member at `maxInFlightPerGroup`
 * takes the next event as soon as it acks one (none is left waiting until it expires), every grouped event costs
 * three etcd sub-transactions (publish, claim, ack) and no more, a member alone in its group gets its backlog in
 * publish order, and a burst of claims puts no more listeners on a signal than Node 20 accepts without a warning.
 */
import type { Event, EventCallback } from '@mastra/core/events';
import { afterEach, describe, expect, it } from 'vitest';

import { EventKeys } from '../../src/pubsub/keys/event-keys.js';
import { recordRequests, type RequestLog } from '../support/request-log.js';
import { waitFor } from '../support/wait.js';
import { usePubSubCluster } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster();

/** A group callback that records the `n` of each event and acks it. */
function acking() {
  const got: number[] = [];
  const cb: EventCallback = (event: Event, ack) => {
    got.push((event.data as { n: number }).n);
    void ack?.();
  };
  return { got, cb };
}

/** Times a delivery order goes down: 0 when it is publish order. */
const descents = (ns: number[]) => ns.filter((n, i) => i > 0 && n < ns[i - 1]!).length;

let log: RequestLog | undefined;
afterEach(() => {
  log?.restore();
  log = undefined;
});

describe('a consumer group working through a backlog', () => {
  it('a member at maxInFlightPerGroup 1 gets every event of a burst of 10, one after another', async () => {
    const pubsub = etcd.pubsub(etcd.namespace(), { maxInFlightPerGroup: 1 });
    const { got, cb } = acking();
    await pubsub.subscribe('burst', cb, { group: 'workers' });
    await Promise.all(Array.from({ length: 10 }, (_, n) => pubsub.publish('burst', { type: 'job', runId: 'r', data: { n } })));
    await waitFor(`10 deliveries (have ${got.length})`, () => got.length >= 10, { timeoutMs: 15_000, intervalMs: 20 });
    expect(new Set(got).size).toBe(10);
  });

  it('every grouped event costs three sub-transactions: its publish, its claim, its ack', async () => {
    const space = etcd.namespace();
    const pubsub = etcd.pubsub(space);
    const { got, cb } = acking();
    await pubsub.subscribe('costed', cb, { group: 'workers' });
    const keys = new EventKeys(space.eventPrefix);
    const underTopic = [keys.events('costed'), keys.claims('costed')].map((prefix) => prefix.toString('latin1'));
    log = recordRequests();
    const count = 20;
    for (let n = 0; n < count; n++) {
      await pubsub.publish('costed', { type: 'job', runId: 'r', data: { n } });
      await waitFor(`delivery of ${n}`, () => got.length > n, { timeoutMs: 10_000, intervalMs: 5 });
    }
    await pubsub.flush();
    // Settle what the last ack set off (a second claim, before the fix) before counting.
    await waitFor('no sub-transaction of the topic in flight', () => log!.txns.every((t) => t.outcome !== undefined), { timeoutMs: 10_000 });
    const sent = log.txns.flatMap((t) => t.keys).filter((key) => underTopic.some((prefix) => key.startsWith(prefix))).length;
    console.info(`grouped events: ${count}, sub-transactions of the topic: ${sent} (${(sent / count).toFixed(2)} per event)`);
    expect(got).toHaveLength(count);
    expect(sent / count).toBe(3);
  });

  it('a member alone in its group gets a backlog of 60 in publish order', async () => {
    const pubsub = etcd.pubsub();
    for (let n = 0; n < 60; n++) await pubsub.publish('ordered', { type: 'job', runId: 'r', data: { n } });
    const { got, cb } = acking();
    await pubsub.subscribe('ordered', cb, { group: 'workers' });
    await waitFor(`60 deliveries (have ${got.length})`, () => got.length >= 60, { timeoutMs: 15_000, intervalMs: 20 });
    console.info(`descents in a backlog of 60: ${descents(got)}`);
    expect(got).toEqual(Array.from({ length: 60 }, (_, n) => n));
  });

  it('a burst of 40 grouped claims puts at most 10 listeners on any AbortSignal (Node 20 warns past 10: MaxListenersExceededWarning)', async () => {
    // Node 22 and later never warn for an AbortSignal, so the test counts what Node 20 warns about: the most 'abort'
    // listeners one signal had at once.
    const listening = new Map<EventTarget, number>();
    let most = 0;
    const add = EventTarget.prototype.addEventListener;
    const remove = EventTarget.prototype.removeEventListener;
    EventTarget.prototype.addEventListener = function (this: EventTarget, type: string, ...rest: unknown[]) {
      if (type === 'abort' && this instanceof AbortSignal) {
        const n = (listening.get(this) ?? 0) + 1;
        listening.set(this, n);
        most = Math.max(most, n);
      }
      return (add as (...a: unknown[]) => void).call(this, type, ...rest);
    } as typeof add;
    EventTarget.prototype.removeEventListener = function (this: EventTarget, type: string, ...rest: unknown[]) {
      if (type === 'abort' && listening.has(this)) listening.set(this, listening.get(this)! - 1);
      return (remove as (...a: unknown[]) => void).call(this, type, ...rest);
    } as typeof remove;
    try {
      const pubsub = etcd.pubsub();
      // Held, not acked, until every event is in: the claims and the acks each come as one burst.
      const held: Array<() => Promise<void>> = [];
      await pubsub.subscribe('many', (_event, ack) => void held.push(ack!), { group: 'workers' });
      await Promise.all(Array.from({ length: 40 }, (_, n) => pubsub.publish('many', { type: 'job', runId: 'r', data: { n } })));
      await waitFor(`40 deliveries (have ${held.length})`, () => held.length >= 40, { timeoutMs: 15_000, intervalMs: 20 });
      await Promise.all(held.map((ack) => ack()));
      await pubsub.flush();
    } finally {
      EventTarget.prototype.addEventListener = add;
      EventTarget.prototype.removeEventListener = remove;
    }
    console.info(`most abort listeners on one signal during a burst of 40 claims: ${most}`);
    expect(most).toBeLessThanOrEqual(10);
  });
});
