import { EventEmitterPubSub } from '@mastra/core/events';
import type { LeaseProvider } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { RecordingPubSub } from '../../test/mastra/support/recording-pubsub.js';
import { PubSubWithLeases } from './pubsub-with-leases.js';
import type { ClosableLeaseProvider } from './pubsub-with-leases.js';

/** In-memory lease provider that records its own close and the order of closes. */
function closableLeases(order: string[], error?: Error): ClosableLeaseProvider & { closed: number } {
  const inner = new EventEmitterPubSub();
  const provider: LeaseProvider & { closed: number; close(): Promise<void> } = {
    closed: 0,
    acquireLease: (k, o, t) => inner.acquireLease(k, o, t),
    getLeaseOwner: (k) => inner.getLeaseOwner(k),
    releaseLease: (k, o) => inner.releaseLease(k, o),
    renewLease: (k, o, t) => inner.renewLease(k, o, t),
    transferLease: (k, f, to, t) => inner.transferLease(k, f, to, t),
    async close() {
      provider.closed += 1;
      order.push('leases');
      if (error) throw error;
    },
  };
  return provider;
}

function recordingEvents(order: string[], error?: Error): RecordingPubSub {
  const events = new RecordingPubSub();
  const close = events.close.bind(events);
  events.close = () => {
    order.push('pubsub');
    if (error) events.closeError = error;
    return close();
  };
  return events;
}

describe('PubSubWithLeases.close', () => {
  it('closes the pubsub first, then the lease provider', async () => {
    const order: string[] = [];
    const pubsub = new PubSubWithLeases(recordingEvents(order), closableLeases(order));
    await pubsub.close();
    expect(order).toEqual(['pubsub', 'leases']);
  });

  it('closes each side once however often it is called', async () => {
    const order: string[] = [];
    const leases = closableLeases(order);
    const pubsub = new PubSubWithLeases(recordingEvents(order), leases);
    const first = pubsub.close();
    expect(pubsub.close()).toBe(first);
    await Promise.all([first, pubsub.close()]);
    expect(order).toEqual(['pubsub', 'leases']);
    expect(leases.closed).toBe(1);
  });

  it('leaves a shared provider open with closeLeaseProvider: false', async () => {
    const order: string[] = [];
    const leases = closableLeases(order);
    const pubsub = new PubSubWithLeases(recordingEvents(order), leases, { closeLeaseProvider: false });
    await pubsub.close();
    expect(order).toEqual(['pubsub']);
    expect(await leases.acquireLease('k', 'o', 1000)).toEqual({ acquired: true, owner: 'o' });
  });

  it('leaves the pubsub open with closePubSub: false', async () => {
    const order: string[] = [];
    const pubsub = new PubSubWithLeases(recordingEvents(order), closableLeases(order), { closePubSub: false });
    await pubsub.close();
    expect(order).toEqual(['leases']);
  });

  it('accepts sides without a close method', async () => {
    const events = new RecordingPubSub();
    Object.defineProperty(events, 'close', { value: undefined });
    const leases: LeaseProvider = new EventEmitterPubSub();
    Object.defineProperty(leases, 'close', { value: undefined });
    await expect(new PubSubWithLeases(events, leases).close()).resolves.toBeUndefined();
    expect(events.calls).toEqual([]);
  });

  it('still closes the lease provider when the pubsub fails to close, and reports the failure', async () => {
    const order: string[] = [];
    const failure = new Error('socket busy');
    const leases = closableLeases(order);
    const pubsub = new PubSubWithLeases(recordingEvents(order, failure), leases);
    await expect(pubsub.close()).rejects.toBe(failure);
    expect(leases.closed).toBe(1);
  });

  it('reports both failures when both sides fail to close', async () => {
    const order: string[] = [];
    const pubsubFailure = new Error('socket busy');
    const leaseFailure = new Error('etcd gone');
    const pubsub = new PubSubWithLeases(recordingEvents(order, pubsubFailure), closableLeases(order, leaseFailure));
    const error = await pubsub.close().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors).toEqual([pubsubFailure, leaseFailure]);
  });

  it('turns a synchronous throw from a close method into a rejection', async () => {
    const order: string[] = [];
    const events = new RecordingPubSub();
    const failure = new Error('sync');
    events.close = () => {
      throw failure;
    };
    const leases = closableLeases(order);
    await expect(new PubSubWithLeases(events, leases).close()).rejects.toBe(failure);
    expect(leases.closed).toBe(1);
  });
});
