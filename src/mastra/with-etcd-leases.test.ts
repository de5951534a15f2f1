import { EventEmitterPubSub, isLeaseProvider, PubSub } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { RecordingLeaseProvider } from '../../test/mastra/support/recording-lease-provider.js';
import { RecordingPubSub } from '../../test/mastra/support/recording-pubsub.js';
import { ProviderClosedError } from '../errors/closed.js';
import { EtcdLeaseProvider } from '../provider.js';
import { PubSubWithLeases } from './pubsub-with-leases.js';
import { withEtcdLeases } from './with-etcd-leases.js';

// Nothing listens here; nothing is sent either, since etcd3 connects on the first request.
const NOWHERE = { hosts: '127.0.0.1:9' };

describe('withEtcdLeases', () => {
  it('builds an EtcdLeaseProvider from options and hands it to Mastra', async () => {
    const pubsub = withEtcdLeases(new EventEmitterPubSub(), NOWHERE);
    try {
      expect(pubsub).toBeInstanceOf(PubSubWithLeases);
      expect(pubsub).toBeInstanceOf(PubSub);
      expect(isLeaseProvider(pubsub)).toBe(true);
      expect(pubsub.getLeaseProvider()).toBeInstanceOf(EtcdLeaseProvider);
    } finally {
      await pubsub.close();
    }
  });

  it('closes a provider it built, even when asked to leave providers open', async () => {
    const events = new RecordingPubSub();
    const pubsub = withEtcdLeases(events, NOWHERE, { closeLeaseProvider: false });
    const provider = pubsub.getLeaseProvider();
    await pubsub.close();
    expect(events.calls.map((c) => c.member)).toEqual(['close']);
    await expect(provider.acquireLease('k', 'o', 5000)).rejects.toBeInstanceOf(ProviderClosedError);
  });

  it('uses a given lease provider as it is', async () => {
    const leases = new RecordingLeaseProvider();
    const pubsub = withEtcdLeases(new EventEmitterPubSub(), leases);
    expect(pubsub.getLeaseProvider()).toBe(leases);
    await pubsub.acquireLease('k', 'o', 5000);
    expect(leases.callsOf('acquireLease')).toEqual([['k', 'o', 5000]]);
  });

  it('closes a given provider by default, and not with closeLeaseProvider: false', async () => {
    const owned = new RecordingLeaseProvider();
    await withEtcdLeases(new EventEmitterPubSub(), owned).close();
    expect(owned.closed).toBe(1);

    const shared = new RecordingLeaseProvider();
    await withEtcdLeases(new EventEmitterPubSub(), shared, { closeLeaseProvider: false }).close();
    expect(shared.closed).toBe(0);
  });

  it('passes the error policy on to the lease provider Mastra resolves', async () => {
    const failing = new RecordingLeaseProvider();
    failing.acquireLease = () => Promise.reject(new Error('down'));
    const pubsub = withEtcdLeases(new EventEmitterPubSub(), failing, { onAcquireError: 'deny' });
    expect(await pubsub.getLeaseProvider().acquireLease('k', 'o', 5000)).toEqual({ acquired: false });
  });

  it('reports invalid provider options at construction', () => {
    expect(() => withEtcdLeases(new EventEmitterPubSub(), {})).toThrow(TypeError);
  });

  it('hands through every member of the wrapped pubsub, also those this package does not know (a newer Mastra’s trimTopic)', async () => {
    // What a pubsub of a newer @mastra/core looks like here: members the PubSub class of 1.71 does not name.
    class NewerPubSub extends EventEmitterPubSub {
      readonly trimmed: unknown[][] = [];
      async trimTopic(topic: string, options: { runId: string; producedBefore?: number }): Promise<void> {
        this.trimmed.push([topic, options]);
      }
      somethingNew(x: number): string {
        return `new ${x}`;
      }
      get capability(): string {
        return 'newer';
      }
    }
    const events = new NewerPubSub();
    const leases = new RecordingLeaseProvider();
    const pubsub = withEtcdLeases(events, leases) as PubSubWithLeases & Partial<NewerPubSub>;
    await pubsub.trimTopic!('run-topic', { runId: 'r1', producedBefore: 42 });
    expect(events.trimmed).toEqual([['run-topic', { runId: 'r1', producedBefore: 42 }]]);
    expect(pubsub.somethingNew!(7)).toBe('new 7');
    expect(pubsub.capability).toBe('newer');
    // Its lease methods stay the lease provider's.
    await pubsub.acquireLease('k', 'o', 5000);
    expect(leases.callsOf('acquireLease')).toEqual([['k', 'o', 5000]]);
  });
});
