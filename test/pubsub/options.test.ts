/**
 * EtcdPubSub options as a user first writes them, on a real 3-member cluster: a lease prefix of one segment, and
 * `maxDeliveryAttempts: 0` (unlimited, as Mastra's Redis Streams backend reads it) for fan-out and groups.
 */
import type { EventCallback } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { EtcdPubSub } from '../../src/mastra/etcd-pubsub.js';
import type { EtcdPubSubOptions } from '../../src/mastra/etcd-pubsub-options.js';
import { waitFor } from '../support/wait.js';
import { collector, usePubSubCluster } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster();

let apps = 0;
/** A lease prefix of one segment no other test uses, as `'myapp/'` is. */
const appPrefix = () => `app${process.pid}x${++apps}/`;

async function withPubSubs<T>(count: number, options: Omit<EtcdPubSubOptions, 'hosts'>, run: (pubsubs: EtcdPubSub[]) => Promise<T>): Promise<T> {
  const pubsubs = Array.from({ length: count }, () => new EtcdPubSub({ hosts: etcd.cluster.endpoints(), ...options }));
  try {
    return await run(pubsubs);
  } finally {
    await Promise.allSettled(pubsubs.map((p) => p.close()));
  }
}

/** A callback that nacks every delivery and records each attempt number. */
function alwaysNack() {
  const attempts: number[] = [];
  const cb: EventCallback = (event, _ack, nack) => {
    attempts.push(event.deliveryAttempt ?? 1);
    void nack?.();
  };
  return { attempts, cb };
}

describe('options', () => {
  it("prefix 'myapp/' works as given: events go to 'myapp-events/', beside the lease keys, never among them", async () => {
    const prefix = appPrefix();
    await withPubSubs(2, { prefix }, async ([a, b]) => {
      const got = collector();
      await b!.subscribe('orders', got.cb);
      expect(await a!.acquireLease('orders', 'owner-a', 5000)).toMatchObject({ acquired: true, owner: 'owner-a' });
      await a!.publish('orders', { type: 'placed', runId: 'r', data: { n: 1 } });
      await got.until(1);
      expect(got.events[0]!.data).toEqual({ n: 1 });
      expect(await b!.getLeaseOwner('orders')).toBe('owner-a');

      const raw = etcd.rawClient();
      const leaseKeys = await raw.getAll().prefix(prefix).keys();
      const eventKeys = await raw.getAll().prefix(`${prefix.slice(0, -1)}-events/`).keys();
      expect(leaseKeys).toEqual([`${prefix}orders`]);
      expect(eventKeys.length).toBeGreaterThan(0);
      expect(eventKeys.every((k) => k.startsWith(`${prefix.slice(0, -1)}-events/t/orders/`))).toBe(true);
    });
  });

  it('maxDeliveryAttempts: 0 never drops a nacked event: fan-out and group deliveries go on past the default cap of 5', async () => {
    await withPubSubs(1, { prefix: appPrefix(), maxDeliveryAttempts: 0, redeliveryDelayMs: 10 }, async ([pubsub]) => {
      const fanout = alwaysNack();
      const group = alwaysNack();
      await pubsub!.subscribe('jobs', fanout.cb);
      await pubsub!.subscribe('jobs', group.cb, { group: 'workers' });
      await pubsub!.publish('jobs', { type: 'job', runId: 'r', data: {} });
      await waitFor('7 fan-out attempts', () => fanout.attempts.length >= 7, { timeoutMs: 15_000 });
      await waitFor('7 grouped attempts', () => group.attempts.length >= 7, { timeoutMs: 15_000 });
      expect(fanout.attempts.slice(0, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(group.attempts.slice(0, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    });
  });
});
