import type { LeaseProvider } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';
import { elapse, waitFor } from '../support/wait.js';

/**
 * Mastra's LeaseProvider contract (docs/design.md#contract), written once and run against every backend:
 * this package's provider on a real etcd cluster and Mastra's in-memory EventEmitterPubSub, the anchor.
 * Where the two disagree, either this suite or the provider is wrong.
 */
export interface ContractSubject {
  /** A provider whose keys are isolated from every other test's. */
  provider(): Promise<LeaseProvider>;
  /**
   * A TTL long enough for the backend to honour as given (etcd rounds up to whole seconds with a
   * server minimum), and how much later than the TTL the backend may expire a key.
   */
  ttlMs: number;
  expirySlackMs: number;
}

let counter = 0;
const uniqueKey = (label: string) => `${label}-${process.pid}-${++counter}`;

export function leaseContract(name: string, subject: ContractSubject): void {
  const { ttlMs } = subject;

  describe(`${name}: acquire`, () => {
    it('a free key is acquired, and the winner is named', async () => {
      const p = await subject.provider();
      expect(await p.acquireLease(uniqueKey('free'), 'A', ttlMs)).toMatchObject({ acquired: true, owner: 'A' });
    });

    it('a loser learns the holder from the acquire itself', async () => {
      const p = await subject.provider();
      const key = uniqueKey('lose');
      await p.acquireLease(key, 'A', ttlMs);
      expect(await p.acquireLease(key, 'B', ttlMs)).toEqual({ acquired: false, owner: 'A' });
    });

    it('the same owner re-acquiring is idempotent and refreshes the TTL', async () => {
      const p = await subject.provider();
      const key = uniqueKey('reacquire');
      await p.acquireLease(key, 'A', ttlMs);
      await elapse(ttlMs * 0.6);
      expect(await p.acquireLease(key, 'A', ttlMs)).toMatchObject({ acquired: true, owner: 'A' });
      await elapse(ttlMs * 0.6); // past the first TTL, inside the refreshed one
      expect(await p.getLeaseOwner(key)).toBe('A');
    });

    it('of many concurrent acquirers exactly one wins and every loser names it', async () => {
      const p = await subject.provider();
      const key = uniqueKey('race');
      const results = await Promise.all(Array.from({ length: 25 }, (_, i) => p.acquireLease(key, `owner-${i}`, ttlMs)));
      const winners = results.filter((r) => r.acquired);
      expect(winners).toHaveLength(1);
      for (const r of results) expect(r.owner).toBe(winners[0]!.owner);
      expect(await p.getLeaseOwner(key)).toBe(winners[0]!.owner);
    });
  });

  describe(`${name}: getLeaseOwner and expiry`, () => {
    it('a free key reads as undefined', async () => {
      const p = await subject.provider();
      expect(await p.getLeaseOwner(uniqueKey('none'))).toBeUndefined();
    });

    it('a lease never expires before its TTL and reads as undefined once it has', async () => {
      const p = await subject.provider();
      const key = uniqueKey('expire');
      const sentAt = performance.now();
      await p.acquireLease(key, 'A', ttlMs);
      // Poll until the lease is gone: every read before sentAt + ttl must still see the owner.
      const goneAt = await waitFor(
        'the lease to expire',
        async () => {
          const owner = await p.getLeaseOwner(key);
          const at = performance.now();
          if (owner === undefined) return at;
          expect(owner).toBe('A');
          return undefined;
        },
        { timeoutMs: ttlMs + subject.expirySlackMs + 5000 },
      );
      expect(goneAt - sentAt).toBeGreaterThanOrEqual(ttlMs);
      expect(goneAt - sentAt).toBeLessThanOrEqual(ttlMs + subject.expirySlackMs);
      expect(await p.acquireLease(key, 'B', ttlMs)).toMatchObject({ acquired: true, owner: 'B' });
    });
  });

  describe(`${name}: release`, () => {
    it('the holder releasing frees the key', async () => {
      const p = await subject.provider();
      const key = uniqueKey('release');
      await p.acquireLease(key, 'A', ttlMs);
      await p.releaseLease(key, 'A');
      expect(await p.getLeaseOwner(key)).toBeUndefined();
      expect(await p.acquireLease(key, 'B', ttlMs)).toMatchObject({ acquired: true });
    });

    it('a non-holder releasing changes nothing', async () => {
      const p = await subject.provider();
      const key = uniqueKey('release-other');
      await p.acquireLease(key, 'A', ttlMs);
      await p.releaseLease(key, 'B');
      expect(await p.getLeaseOwner(key)).toBe('A');
      await p.releaseLease(uniqueKey('never-held'), 'B'); // and a free key is fine too
    });
  });

  describe(`${name}: renew`, () => {
    it('renew returns true while owned and keeps the lease alive past its first TTL', async () => {
      const p = await subject.provider();
      const key = uniqueKey('renew');
      await p.acquireLease(key, 'A', ttlMs);
      for (let i = 0; i < 3; i++) {
        await elapse(ttlMs / 2);
        expect(await p.renewLease(key, 'A', ttlMs)).toBe(true);
      }
      expect(await p.getLeaseOwner(key)).toBe('A');
    });

    it('renew returns false for another owner and does not take the key', async () => {
      const p = await subject.provider();
      const key = uniqueKey('renew-other');
      await p.acquireLease(key, 'A', ttlMs);
      expect(await p.renewLease(key, 'B', ttlMs)).toBe(false);
      expect(await p.getLeaseOwner(key)).toBe('A');
    });

    it('renew returns false once the lease expired, and does not resurrect it', async () => {
      const p = await subject.provider();
      const key = uniqueKey('renew-expired');
      await p.acquireLease(key, 'A', ttlMs);
      await waitFor('expiry', async () => ((await p.getLeaseOwner(key)) === undefined ? true : undefined), { timeoutMs: ttlMs + subject.expirySlackMs + 5000 });
      expect(await p.renewLease(key, 'A', ttlMs)).toBe(false);
      expect(await p.getLeaseOwner(key)).toBeUndefined();
    });
  });

  describe(`${name}: transfer`, () => {
    it('the holder hands the key to another owner, with a fresh TTL', async () => {
      const p = await subject.provider();
      const key = uniqueKey('transfer');
      await p.acquireLease(key, 'A', ttlMs);
      await elapse(ttlMs * 0.6);
      expect(await p.transferLease(key, 'A', 'B', ttlMs)).toBe(true);
      expect(await p.getLeaseOwner(key)).toBe('B');
      await elapse(ttlMs * 0.6); // past A's TTL: B's refreshed lease still holds
      expect(await p.getLeaseOwner(key)).toBe('B');
      expect(await p.renewLease(key, 'A', ttlMs)).toBe(false);
    });

    it('a transfer from an owner who lost the key returns false and moves nothing', async () => {
      const p = await subject.provider();
      const key = uniqueKey('transfer-lost');
      await p.acquireLease(key, 'C', ttlMs);
      expect(await p.transferLease(key, 'A', 'B', ttlMs)).toBe(false);
      expect(await p.getLeaseOwner(key)).toBe('C');
      expect(await p.transferLease(uniqueKey('transfer-free'), 'A', 'B', ttlMs)).toBe(false);
    });

    it('under contention a transfer never leaves the key free and never lets a contender in', async () => {
      const p = await subject.provider();
      const key = uniqueKey('transfer-race');
      await p.acquireLease(key, 'A', ttlMs);
      let stop = false;
      const seen = new Set<string | undefined>();
      const poll = (async () => {
        while (!stop) seen.add(await p.getLeaseOwner(key));
      })();
      const contenders = Array.from({ length: 5 }, async (_, i) => {
        const wins: string[] = [];
        while (!stop) if ((await p.acquireLease(key, `contender-${i}`, ttlMs)).acquired) wins.push(`contender-${i}`);
        return wins;
      });
      expect(await p.transferLease(key, 'A', 'B', ttlMs)).toBe(true);
      expect(await p.transferLease(key, 'B', 'C', ttlMs)).toBe(true);
      stop = true;
      await poll;
      expect((await Promise.all(contenders)).flat()).toEqual([]);
      expect(seen.has(undefined)).toBe(false);
      expect(await p.getLeaseOwner(key)).toBe('C');
    });
  });

  describe(`${name}: keys and owners are arbitrary strings`, () => {
    it('keys with NUL bytes and unicode round-trip, and "a" and "a\\u0000b" are different leases', async () => {
      const p = await subject.provider();
      const base = uniqueKey('nul');
      const keys = [base, `${base}\u0000thread`, `${base}\u0000`, `${base}/résumé/线程/🧵`];
      for (const [i, key] of keys.entries()) {
        expect(await p.acquireLease(key, `owner-${i}`, ttlMs)).toMatchObject({ acquired: true });
      }
      for (const [i, key] of keys.entries()) expect(await p.getLeaseOwner(key)).toBe(`owner-${i}`);
    });

    it("Mastra's thread keys and long JSON owner tokens round-trip exactly", async () => {
      const p = await subject.provider();
      const key = `${uniqueKey('resource')}\u0000thread-1`;
      const owner = `mastra-thread-owner:${JSON.stringify({ runId: 'r'.repeat(200), pid: 1, note: 'ü "quoted" \u0000' })}`;
      expect(await p.acquireLease(key, owner, ttlMs)).toEqual(expect.objectContaining({ acquired: true, owner }));
      expect(await p.getLeaseOwner(key)).toBe(owner);
      expect(await p.acquireLease(key, 'other', ttlMs)).toEqual({ acquired: false, owner });
    });
  });
}
