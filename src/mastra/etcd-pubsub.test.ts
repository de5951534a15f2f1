import { isLeaseProvider, PubSub } from '@mastra/core/events';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ProviderClosedError } from '../errors/closed.js';
import { EtcdPubSub } from './etcd-pubsub.js';

// No etcd here: construction sends nothing, so the shape and the option checks are testable without a cluster.
const hosts = '127.0.0.1:1';

describe('EtcdPubSub (shape)', () => {
  it('is a Mastra PubSub and a lease provider, with its lease provider and pull mode', async () => {
    const pubsub = new EtcdPubSub({ hosts });
    try {
      expect(pubsub).toBeInstanceOf(PubSub);
      expect(isLeaseProvider(pubsub)).toBe(true);
      expect(isLeaseProvider(pubsub.getLeaseProvider())).toBe(true);
      expect(typeof pubsub.getLeaseRecord).toBe('function');
      expect(pubsub.supportedModes).toEqual(['pull']);
      expect(pubsub.supportsNativeBatching).toBe(false);
      expect(pubsub.supportsOffsets).toBe(false);
    } finally {
      await pubsub.close();
    }
  });

  it('refuses bad options naming them, before building anything', () => {
    expect(() => new EtcdPubSub({ hosts, prefix: 'lease' })).toThrow(/^options\.eventPrefix: required/);
    expect(() => new EtcdPubSub({ hosts, maxDeliveryAttempts: -1 })).toThrow(/^options\.maxDeliveryAttempts: /);
    expect(() => new EtcdPubSub({ hosts, retentionMs: 10 })).toThrow(/^options\.retentionMs: /);
    expect(() => new EtcdPubSub({ hosts, onAcquireError: 'maybe' as never })).toThrow(/^options\.onAcquireError: /);
    expect(() => new EtcdPubSub({ hosts, onLeaseError: 1 as never })).toThrow(/^options\.onLeaseError: /);
    expect(() => new EtcdPubSub({} as never)).toThrow(/^options\.hosts: /);
  });

  it('shows its settings, never a secret', async () => {
    const pubsub = new EtcdPubSub({ hosts, auth: { username: 'u', password: 'hunter2' } });
    try {
      const shown = `${inspect(pubsub, { depth: 10 })}${JSON.stringify(pubsub)}`;
      expect(shown).not.toContain('hunter2');
      expect(shown).toContain('mastra/events/');
    } finally {
      await pubsub.close();
    }
  });

  it('takes the obvious one-segment lease prefix, with its events beside it', async () => {
    const pubsub = new EtcdPubSub({ hosts, prefix: 'myapp/' });
    try {
      expect(pubsub.toJSON()).toMatchObject({ prefix: 'myapp/', eventPrefix: 'myapp-events/' });
    } finally {
      await pubsub.close();
    }
  });

  it('takes maxDeliveryAttempts: 0 as unlimited', async () => {
    const pubsub = new EtcdPubSub({ hosts, maxDeliveryAttempts: 0 });
    await pubsub.close();
  });

  it('close is idempotent and later calls fail as closed, naming the EtcdPubSub', async () => {
    const pubsub = new EtcdPubSub({ hosts });
    await Promise.all([pubsub.close(), pubsub.close()]);
    const closed = (operation: string) => ({ code: 'ELEASE_CLOSED', closed: 'EtcdPubSub', message: `${operation}: the EtcdPubSub is closed` });
    await expect(pubsub.publish('t', { type: 't', runId: 'r', data: null })).rejects.toMatchObject(closed('publish'));
    await expect(pubsub.subscribe('t', () => {})).rejects.toMatchObject(closed('subscribe'));
    await expect(pubsub.subscribe('t', () => {}, { group: 'g' })).rejects.toMatchObject(closed('subscribe'));
    await expect(pubsub.getHistory('t')).rejects.toMatchObject(closed('getHistory'));
    await expect(pubsub.acquireLease('k', 'o', 5000)).rejects.toMatchObject(closed('acquireLease'));
    await expect(pubsub.renewLease('k', 'o', 5000)).rejects.toMatchObject(closed('renewLease'));
    await expect(pubsub.publish('t', { type: 't', runId: 'r', data: null })).rejects.toBeInstanceOf(ProviderClosedError);
  });
});
