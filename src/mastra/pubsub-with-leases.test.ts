import { InMemoryServerCache } from '@mastra/core/cache';
import { EventEmitterPubSub, isLeaseProvider, PubSub, withCaching } from '@mastra/core/events';
import type { EventCallback, LeaseProvider } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { RecordingPubSub } from '../../test/mastra/support/recording-pubsub.js';
import { PubSubWithLeases } from './pubsub-with-leases.js';

const KEY = 'resource\u0000thread';
const cb: EventCallback = () => {};

function setup() {
  const events = new RecordingPubSub();
  const leases = new EventEmitterPubSub();
  const pubsub = new PubSubWithLeases(events, leases);
  return { events, leases, pubsub };
}

/** Every member `PubSub` declares in the installed @mastra/core, read from the class itself. */
function pubSubMembers(): string[] {
  return Object.getOwnPropertyNames(PubSub.prototype).filter((name) => name !== 'constructor');
}

describe('PubSubWithLeases: event delivery', () => {
  it('overrides every member of the installed PubSub base class except the protected offset hook', () => {
    const own = new Set(Object.getOwnPropertyNames(PubSubWithLeases.prototype));
    const missing = pubSubMembers().filter((name) => !own.has(name) && name !== 'onUnsupportedOffset');
    // A new member in a future @mastra/core would silently fall back to the base default
    // (e.g. "no history"): this fails first.
    expect(missing).toEqual([]);
    expect(pubSubMembers()).toEqual(
      expect.arrayContaining(['clearTopic', 'supportedModes', 'supportsNativeBatching', 'supportsOffsets', 'getHistory']),
    );
  });

  it('forwards each method with its arguments unchanged and returns the inner result', async () => {
    const { events, pubsub } = setup();
    const event = { type: 't', data: { x: 1 }, runId: 'r' };

    await pubsub.publish('topic', event, { localOnly: true });
    await pubsub.publish('topic', event);
    await pubsub.subscribe('topic', cb, { group: 'g', startFrom: 'earliest' });
    await pubsub.subscribe('topic', cb);
    await pubsub.unsubscribe('topic', cb);
    await pubsub.flush();
    await pubsub.clearTopic('topic');
    const history = await pubsub.getHistory('topic', 3);
    await pubsub.subscribeWithReplay('topic', cb);
    await pubsub.subscribeFromOffset('topic', 7, cb);

    expect(history).toBe(events.history);
    expect(events.calls).toEqual([
      { member: 'publish', args: ['topic', event, { localOnly: true }] },
      { member: 'publish', args: ['topic', event, undefined] },
      { member: 'subscribe', args: ['topic', cb, { group: 'g', startFrom: 'earliest' }] },
      { member: 'subscribe', args: ['topic', cb, undefined] },
      { member: 'unsubscribe', args: ['topic', cb] },
      { member: 'flush', args: [] },
      { member: 'clearTopic', args: ['topic'] },
      { member: 'getHistory', args: ['topic', 3] },
      { member: 'subscribeWithReplay', args: ['topic', cb] },
      // The inner decides whether offset 7 is supported; the base-class fallback
      // (warn, then full replay) must not run in the wrapper.
      { member: 'subscribeFromOffset', args: ['topic', 7, cb] },
    ]);
  });

  it('reads every capability getter from the inner pubsub each time', () => {
    const { events, pubsub } = setup();
    expect(pubsub.supportedModes).toEqual(['push', 'pull']);
    expect(pubsub.supportsNativeBatching).toBe(true);
    expect(pubsub.supportsOffsets).toBe(true);

    events.modes = ['pull'];
    events.nativeBatching = false;
    events.offsets = false;
    expect(pubsub.supportedModes).toEqual(['pull']);
    expect(pubsub.supportsNativeBatching).toBe(false);
    expect(pubsub.supportsOffsets).toBe(false);
    expect(events.calls.map((c) => c.member)).toEqual([
      'supportedModes',
      'supportsNativeBatching',
      'supportsOffsets',
      'supportedModes',
      'supportsNativeBatching',
      'supportsOffsets',
    ]);
  });

  it('propagates a rejection from the inner pubsub', async () => {
    const events = new RecordingPubSub();
    const failure = new Error('broker down');
    events.publish = () => Promise.reject(failure);
    const pubsub = new PubSubWithLeases(events, new EventEmitterPubSub());
    await expect(pubsub.publish('t', { type: 't', data: null, runId: 'r' })).rejects.toBe(failure);
  });

  it('delivers events end to end through a real EventEmitterPubSub', async () => {
    const pubsub = new PubSubWithLeases(new EventEmitterPubSub(), new EventEmitterPubSub());
    const seen: unknown[] = [];
    await pubsub.subscribe('topic', (event) => void seen.push(event.data));
    await pubsub.publish('topic', { type: 't', data: 42, runId: 'r' });
    await pubsub.flush();
    expect(seen).toEqual([42]);
    expect(pubsub.supportedModes).toEqual(new EventEmitterPubSub().supportedModes);
  });

  it('exposes the wrapped pubsub through getInner()', () => {
    const { events, pubsub } = setup();
    expect(pubsub.getInner()).toBe(events);
  });
});

describe('PubSubWithLeases: leases', () => {
  it('is a PubSub and a LeaseProvider by Mastra’s own checks', () => {
    const { pubsub } = setup();
    expect(pubsub).toBeInstanceOf(PubSub);
    expect(isLeaseProvider(pubsub)).toBe(true);
  });

  it('getLeaseProvider() returns the given provider itself when no error policy is set', () => {
    const { leases, pubsub } = setup();
    expect(pubsub.getLeaseProvider()).toBe(leases);
  });

  it('runs all five lease methods on the lease provider, never on the event pubsub', async () => {
    // The event side is itself a lease provider (in-memory): a wrapper that leaked a call to
    // it would leave a trace there.
    const events = new EventEmitterPubSub();
    const leases = new EventEmitterPubSub();
    const pubsub = new PubSubWithLeases(events, leases);

    expect(await pubsub.acquireLease(KEY, 'run-a', 10_000)).toEqual({ acquired: true, owner: 'run-a' });
    expect(await leases.getLeaseOwner(KEY)).toBe('run-a');
    expect(await pubsub.acquireLease(KEY, 'run-b', 10_000)).toEqual({ acquired: false, owner: 'run-a' });
    expect(await pubsub.renewLease(KEY, 'run-a', 10_000)).toBe(true);
    expect(await pubsub.renewLease(KEY, 'run-b', 10_000)).toBe(false);
    expect(await pubsub.transferLease(KEY, 'run-a', 'run-c', 10_000)).toBe(true);
    expect(await pubsub.getLeaseOwner(KEY)).toBe('run-c');
    await pubsub.releaseLease(KEY, 'run-a');
    expect(await leases.getLeaseOwner(KEY)).toBe('run-c');
    await pubsub.releaseLease(KEY, 'run-c');
    expect(await pubsub.getLeaseOwner(KEY)).toBeUndefined();

    await leases.acquireLease(KEY, 'direct', 10_000);
    expect(await pubsub.getLeaseOwner(KEY)).toBe('direct');
    expect(await events.getLeaseOwner(KEY)).toBeUndefined();
  });

  it('passes lease arguments through unchanged, NUL bytes and long owners included', async () => {
    const calls: unknown[][] = [];
    const provider: LeaseProvider = {
      acquireLease: async (...args) => (calls.push(['acquireLease', ...args]), { acquired: true, owner: args[1] }),
      getLeaseOwner: async (...args) => (calls.push(['getLeaseOwner', ...args]), 'o'),
      releaseLease: async (...args) => void calls.push(['releaseLease', ...args]),
      renewLease: async (...args) => (calls.push(['renewLease', ...args]), true),
      transferLease: async (...args) => (calls.push(['transferLease', ...args]), true),
    };
    const pubsub = new PubSubWithLeases(new RecordingPubSub(), provider);
    const owner = 'x'.repeat(2048);
    await pubsub.acquireLease(KEY, owner, 15_000);
    await pubsub.getLeaseOwner(KEY);
    await pubsub.renewLease(KEY, owner, 15_000);
    await pubsub.transferLease(KEY, owner, 'next', 15_000);
    await pubsub.releaseLease(KEY, 'next');
    expect(calls).toEqual([
      ['acquireLease', KEY, owner, 15_000],
      ['getLeaseOwner', KEY],
      ['renewLease', KEY, owner, 15_000],
      ['transferLease', KEY, owner, 'next', 15_000],
      ['releaseLease', KEY, 'next'],
    ]);
  });

  it('stays the lease provider when Mastra wraps it in CachingPubSub', async () => {
    const { leases, pubsub } = setup();
    const cached = withCaching(pubsub, new InMemoryServerCache());
    const resolved = cached.getLeaseProvider();
    expect(resolved).toBe(pubsub);
    await resolved!.acquireLease(KEY, 'run-a', 10_000);
    expect(await leases.getLeaseOwner(KEY)).toBe('run-a');
  });

  it('works through a Proxy that does not re-bind `this`', async () => {
    const { leases, pubsub } = setup();
    const proxied = new Proxy(pubsub, {});
    await proxied.acquireLease(KEY, 'run-a', 10_000);
    expect(proxied.getLeaseProvider()).toBe(leases);
    expect(proxied.supportsOffsets).toBe(true);
    await proxied.flush();
  });
});

describe('PubSubWithLeases: run metadata (no Mastra release calls it)', () => {
  /** Records every call and keeps metadata, like EtcdLeaseProvider. */
  function metadataProvider() {
    const calls: unknown[][] = [];
    const record = (...args: unknown[]) => {
      calls.push(args);
      return Promise.resolve(true as never);
    };
    const provider = {
      acquireLease: (...a: unknown[]) => (record('acquireLease', ...a), Promise.resolve({ acquired: true, owner: a[1] as string })),
      getLeaseOwner: (...a: unknown[]) => record('getLeaseOwner', ...a),
      releaseLease: (...a: unknown[]) => record('releaseLease', ...a),
      renewLease: (...a: unknown[]) => record('renewLease', ...a),
      transferLease: (...a: unknown[]) => record('transferLease', ...a),
      getLeaseRecord: (key: string) => (calls.push(['getLeaseRecord', key]), Promise.resolve({ owner: 'o', metadata: 'run-1' })),
    } as unknown as LeaseProvider;
    return { calls, provider };
  }

  it('passes metadata to the provider unchanged, on the wrapper and on getLeaseProvider()', async () => {
    const { calls, provider } = metadataProvider();
    for (const pubsub of [new PubSubWithLeases(new RecordingPubSub(), provider), new PubSubWithLeases(new RecordingPubSub(), provider, { onAcquireError: 'deny' })]) {
      calls.length = 0;
      const leases = pubsub.getLeaseProvider() as unknown as PubSubWithLeases;
      for (const target of [pubsub, leases]) {
        await target.acquireLease(KEY, 'o', 1000, 'run-1');
        await target.renewLease(KEY, 'o', 1000, 'run-1');
        await target.transferLease(KEY, 'o', 'p', 1000, 'run-1', 'run-2');
        await target.releaseLease(KEY, 'p', 'run-2');
        expect(await target.getLeaseRecord!(KEY)).toEqual({ owner: 'o', metadata: 'run-1' });
      }
      expect(calls.slice(0, 5)).toEqual([
        ['acquireLease', KEY, 'o', 1000, 'run-1'],
        ['renewLease', KEY, 'o', 1000, 'run-1'],
        ['transferLease', KEY, 'o', 'p', 1000, 'run-1', 'run-2'],
        ['releaseLease', KEY, 'p', 'run-2'],
        ['getLeaseRecord', KEY],
      ]);
      expect(calls).toHaveLength(10);
    }
  });

  it('offers getLeaseRecord only when the provider keeps metadata, so Mastra never assumes it does', () => {
    const withoutRecords = new PubSubWithLeases(new RecordingPubSub(), new EventEmitterPubSub(), { onLeaseError: () => {} });
    expect('getLeaseRecord' in withoutRecords).toBe(false);
    expect('getLeaseRecord' in (withoutRecords.getLeaseProvider() as object)).toBe(false);
    const withRecords = new PubSubWithLeases(new RecordingPubSub(), metadataProvider().provider, { onLeaseError: () => {} });
    expect(typeof withRecords.getLeaseRecord).toBe('function');
    expect(typeof (withRecords.getLeaseProvider() as { getLeaseRecord?: unknown }).getLeaseRecord).toBe('function');
  });
});

describe('PubSubWithLeases: construction', () => {
  it('rejects a pubsub that is not one, naming the parameter', () => {
    expect(() => new PubSubWithLeases({} as PubSub, new EventEmitterPubSub())).toThrow(/^pubsub: /);
    expect(() => new PubSubWithLeases(undefined as unknown as PubSub, new EventEmitterPubSub())).toThrow(TypeError);
  });

  it('rejects a lease provider without all five methods, naming the parameter', () => {
    const partial = { acquireLease: async () => ({ acquired: true }) } as unknown as LeaseProvider;
    expect(() => new PubSubWithLeases(new RecordingPubSub(), partial)).toThrow(/^leases: .*transferLease/);
  });

  it('rejects an unknown onAcquireError policy', () => {
    expect(
      () =>
        new PubSubWithLeases(new RecordingPubSub(), new EventEmitterPubSub(), {
          onAcquireError: 'ignore' as 'throw',
        }),
    ).toThrow(/^options\.onAcquireError: /);
  });
});
