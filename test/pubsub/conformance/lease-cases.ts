import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import { waitFor } from '../../support/wait.js';
import type { ConformanceSubject } from './subject.js';

/**
 * The lease methods as Mastra's thread runtime reaches them: on the pubsub itself (its Redis and EventEmitter tests
 * ask the pubsub, with deep equality of the results). The whole lease contract runs against the provider in
 * test/contract/; this is the same contract through the pubsub object.
 */
export function leaseCases(subject: ConformanceSubject): void {
  const { ttlMs, expirySlackMs } = subject.lease;
  const key = (what: string) => `lease-${what}-${randomUUID()}`;

  describe('leases through the pubsub', () => {
    it('a free key is granted; another owner is denied and told the holder, also on another instance', async () => {
      const [a, b] = [subject.instance(), subject.instance()];
      const k = key('grant');
      expect(await a.acquireLease(k, 'owner-a', ttlMs)).toEqual({ acquired: true, owner: 'owner-a' });
      expect(await b.acquireLease(k, 'owner-b', ttlMs)).toEqual({ acquired: false, owner: 'owner-a' });
      expect(await b.getLeaseOwner(k)).toBe('owner-a');
    });

    it('of two instances racing for a key exactly one wins, and the loser names it', async () => {
      const [a, b] = [subject.instance(), subject.instance()];
      const k = key('race');
      const results = await Promise.all([a.acquireLease(k, 'owner-a', ttlMs), b.acquireLease(k, 'owner-b', ttlMs)]);
      const winners = results.filter((r) => r.acquired);
      expect(winners).toHaveLength(1);
      expect(results.find((r) => !r.acquired)!.owner).toBe(winners[0]!.owner);
    });

    it('the same owner acquiring again is idempotent', async () => {
      const pubsub = subject.instance();
      const k = key('again');
      await pubsub.acquireLease(k, 'owner-a', ttlMs);
      expect(await pubsub.acquireLease(k, 'owner-a', ttlMs)).toEqual({ acquired: true, owner: 'owner-a' });
    });

    it('release by another owner changes nothing; release by the holder frees the key', async () => {
      const [a, b] = [subject.instance(), subject.instance()];
      const k = key('release');
      await a.acquireLease(k, 'owner-a', ttlMs);
      await b.releaseLease(k, 'owner-b');
      expect(await a.getLeaseOwner(k)).toBe('owner-a');
      await a.releaseLease(k, 'owner-a');
      expect(await b.getLeaseOwner(k)).toBeUndefined();
    });

    it('renew is true for the holder and false for another owner; transfer moves the key from its holder only', async () => {
      const [a, b] = [subject.instance(), subject.instance()];
      const k = key('renew');
      await a.acquireLease(k, 'owner-a', ttlMs);
      expect(await a.renewLease(k, 'owner-a', ttlMs)).toBe(true);
      expect(await b.renewLease(k, 'owner-b', ttlMs)).toBe(false);
      expect(await b.transferLease(k, 'someone-else', 'owner-b', ttlMs)).toBe(false);
      expect(await a.getLeaseOwner(k)).toBe('owner-a');
      expect(await a.transferLease(k, 'owner-a', 'owner-b', ttlMs)).toBe(true);
      expect(await b.getLeaseOwner(k)).toBe('owner-b');
    });

    it('an unknown key has no owner', async () => {
      expect(await subject.instance().getLeaseOwner(key('unknown'))).toBeUndefined();
    });

    it('a lease expires after its TTL (never before): then renew and transfer are false and a new owner acquires it', async () => {
      const [a, b] = [subject.instance(), subject.instance()];
      const k = key('expiry');
      const sentAt = performance.now();
      await a.acquireLease(k, 'owner-a', ttlMs);
      await waitFor('the lease expired', async () => (await b.getLeaseOwner(k)) === undefined, { timeoutMs: ttlMs + expirySlackMs + 5000, intervalMs: 50 });
      expect(performance.now() - sentAt).toBeGreaterThanOrEqual(ttlMs - 5); // 5 ms: a backend may count on Date.now()
      expect(await a.renewLease(k, 'owner-a', ttlMs)).toBe(false);
      expect(await a.transferLease(k, 'owner-a', 'owner-c', ttlMs)).toBe(false);
      expect(await b.acquireLease(k, 'owner-b', ttlMs)).toEqual({ acquired: true, owner: 'owner-b' });
    });
  });
}
