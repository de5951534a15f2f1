import { EventEmitterPubSub } from '@mastra/core/events';
import type { LeaseProvider } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { RecordingPubSub } from '../../test/mastra/support/recording-pubsub.js';
import { PubSubWithLeases } from './pubsub-with-leases.js';
import type { LeaseOperation } from './options.js';

const KEY = 'r\u0000t';

/** Every operation rejects with `failure`, as the etcd provider does once its deadline passes. */
function unreachable(failure: Error): LeaseProvider {
  const reject = () => Promise.reject(failure);
  return { acquireLease: reject, getLeaseOwner: reject, releaseLease: reject, renewLease: reject, transferLease: reject };
}

describe('error policy seen by Mastra', () => {
  it("'throw' (default) lets an acquire failure reach the caller", async () => {
    const failure = new Error('etcd unavailable');
    const pubsub = new PubSubWithLeases(new RecordingPubSub(), unreachable(failure));
    await expect(pubsub.getLeaseProvider().acquireLease(KEY, 'run', 1000)).rejects.toBe(failure);
    await expect(pubsub.acquireLease(KEY, 'run', 1000)).rejects.toBe(failure);
  });

  it("'deny' reports an acquire failure as not acquired, with no owner to forward work to", async () => {
    const pubsub = new PubSubWithLeases(new RecordingPubSub(), unreachable(new Error('down')), { onAcquireError: 'deny' });
    const viaMastra = await pubsub.getLeaseProvider().acquireLease(KEY, 'run', 1000);
    expect(viaMastra).toEqual({ acquired: false });
    expect('owner' in viaMastra).toBe(false);
    expect(await pubsub.acquireLease(KEY, 'run', 1000)).toEqual({ acquired: false });
  });

  it("'deny' never rewrites the other operations", async () => {
    const failure = new Error('down');
    const pubsub = new PubSubWithLeases(new RecordingPubSub(), unreachable(failure), { onAcquireError: 'deny' });
    await expect(pubsub.getLeaseOwner(KEY)).rejects.toBe(failure);
    await expect(pubsub.renewLease(KEY, 'run', 1000)).rejects.toBe(failure);
    await expect(pubsub.transferLease(KEY, 'run', 'next', 1000)).rejects.toBe(failure);
    await expect(pubsub.releaseLease(KEY, 'run')).rejects.toBe(failure);
  });

  it("'deny' leaves successful results untouched", async () => {
    const pubsub = new PubSubWithLeases(new RecordingPubSub(), new EventEmitterPubSub(), { onAcquireError: 'deny' });
    expect(await pubsub.acquireLease(KEY, 'a', 10_000)).toEqual({ acquired: true, owner: 'a' });
    expect(await pubsub.acquireLease(KEY, 'b', 10_000)).toEqual({ acquired: false, owner: 'a' });
  });

  it('onLeaseError sees every failing operation with its key, before the policy applies', async () => {
    const failure = new Error('down');
    const seen: [unknown, LeaseOperation, string][] = [];
    const pubsub = new PubSubWithLeases(new RecordingPubSub(), unreachable(failure), {
      onAcquireError: 'deny',
      onLeaseError: (error, operation, key) => void seen.push([error, operation, key]),
    });
    await pubsub.acquireLease(KEY, 'run', 1000);
    await pubsub.getLeaseOwner(KEY).catch(() => {});
    await pubsub.renewLease(KEY, 'run', 1000).catch(() => {});
    await pubsub.transferLease(KEY, 'run', 'next', 1000).catch(() => {});
    await pubsub.releaseLease(KEY, 'run').catch(() => {});
    expect(seen).toEqual([
      [failure, 'acquireLease', KEY],
      [failure, 'getLeaseOwner', KEY],
      [failure, 'renewLease', KEY],
      [failure, 'transferLease', KEY],
      [failure, 'releaseLease', KEY],
    ]);
  });

  it('an onLeaseError that throws does not change the outcome', async () => {
    const failure = new Error('down');
    const pubsub = new PubSubWithLeases(new RecordingPubSub(), unreachable(failure), {
      onLeaseError: () => {
        throw new Error('logger broke');
      },
    });
    await expect(pubsub.renewLease(KEY, 'run', 1000)).rejects.toBe(failure);
  });

  it('onLeaseError is not called on success', async () => {
    let calls = 0;
    const pubsub = new PubSubWithLeases(new RecordingPubSub(), new EventEmitterPubSub(), { onLeaseError: () => void calls++ });
    await pubsub.acquireLease(KEY, 'a', 10_000);
    await pubsub.renewLease(KEY, 'a', 10_000);
    await pubsub.transferLease(KEY, 'a', 'b', 10_000);
    await pubsub.getLeaseOwner(KEY);
    await pubsub.releaseLease(KEY, 'b');
    expect(calls).toBe(0);
  });
});
