import type { LeaseProvider } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';
import type { LeaseRecordProvider } from '../../src/mastra/lease-record-provider.js';
import { leaseCalls, recordOf, runOf, type LeaseCalls } from './lease-calls.js';
import { raceTransfers } from './transfer-race.js';
import { elapseUntil, observeExpiry, refreshPastFirstLease } from './ttl-extension.js';

/**
 * Mastra's LeaseProvider contract (docs/design.md#contract), written once and run against every backend:
 * this package's provider on a real etcd cluster and Mastra's in-memory EventEmitterPubSub, the anchor.
 * Where the two disagree, either this suite or the provider is wrong.
 *
 * With `metadata`, every call carries the owner's run metadata (the provider's run-metadata extension, which no
 * Mastra has, nor its EventEmitterPubSub), and a block of metadata-only semantics runs too.
 */
export interface ContractSubject {
  /**
   * `count` clients sharing one key space that no other test uses: separate providers on one cluster (own
   * connections, lease pools and tenure tables), or the same in-memory instance.
   */
  clients(count: number): Promise<LeaseProvider[]>;
  /** A TTL the backend honours as given (etcd rounds up to whole seconds with a server minimum). */
  ttlMs: number;
  /** How long after (send time of its last write + ttlMs) the backend may still show a key: its late bound. */
  expirySlackMs: number;
  /** Run the suite with run metadata on every call. The clients must have getLeaseRecord. */
  metadata?: boolean;
}

let counter = 0;
const uniqueKey = (label: string) => `${label}-${process.pid}-${++counter}`;

export function leaseContract(name: string, subject: ContractSubject): void {
  const { ttlMs, expirySlackMs } = subject;
  const withMetadata = subject.metadata === true;
  const variant = `${name}${withMetadata ? ', with run metadata' : ''}`;
  /** Two clients of one key space, as the suite calls them, and a third for reading. */
  const trio = async (): Promise<[LeaseCalls, LeaseCalls, LeaseCalls]> => {
    const [a, b, c] = await subject.clients(3);
    return [leaseCalls(a!, withMetadata), leaseCalls(b!, withMetadata), leaseCalls(c!, withMetadata)];
  };
  const one = async () => (await trio())[0];
  const expiryTimeoutMs = ttlMs + expirySlackMs + 5000;

  describe(`${variant}: acquire`, () => {
    it('a free key is acquired, and the winner is named and recorded', async () => {
      const p = await one();
      const key = uniqueKey('free');
      expect(await p.acquire(key, 'A', ttlMs)).toMatchObject({ acquired: true, owner: 'A' });
      expect(await p.record(key)).toStrictEqual(recordOf('A', withMetadata));
    });

    it('a loser on another client learns the holder from the acquire itself', async () => {
      const [a, b] = await trio();
      const key = uniqueKey('lose');
      await a.acquire(key, 'A', ttlMs);
      expect(await b.acquire(key, 'B', ttlMs)).toStrictEqual({ acquired: false, owner: 'A' });
    });

    it('the same owner acquiring again is idempotent, from either client', async () => {
      const [a, b] = await trio();
      const key = uniqueKey('reacquire');
      await a.acquire(key, 'A', ttlMs);
      expect(await a.acquire(key, 'A', ttlMs)).toMatchObject({ acquired: true, owner: 'A' });
      expect(await b.acquire(key, 'A', ttlMs)).toMatchObject({ acquired: true, owner: 'A' });
      expect(await b.record(key)).toStrictEqual(recordOf('A', withMetadata));
    });

    it('of many concurrent acquirers on two clients exactly one wins and every loser names it', async () => {
      const [a, b, reader] = await trio();
      const key = uniqueKey('race');
      const results = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).acquire(key, `owner-${i}`, ttlMs)));
      const winners = results.filter((r) => r.acquired);
      expect(winners).toHaveLength(1);
      for (const r of results) expect(r.owner).toBe(winners[0]!.owner);
      expect(await reader.owner(key)).toBe(winners[0]!.owner);
    });
  });

  describe(`${variant}: release`, () => {
    it('the holder releasing frees the key for another client', async () => {
      const [a, b] = await trio();
      const key = uniqueKey('release');
      await a.acquire(key, 'A', ttlMs);
      await a.release(key, 'A');
      expect(await b.owner(key)).toBeUndefined();
      expect(await b.acquire(key, 'B', ttlMs)).toMatchObject({ acquired: true });
    });

    it('a non-holder releasing changes nothing, and releasing a free key is fine', async () => {
      const [a, b] = await trio();
      const key = uniqueKey('release-other');
      await a.acquire(key, 'A', ttlMs);
      await b.release(key, 'B');
      expect(await b.record(key)).toStrictEqual(recordOf('A', withMetadata));
      await b.release(uniqueKey('never-held'), 'B');
    });
  });

  describe(`${variant}: renew and transfer answers`, () => {
    it('renew returns false for another owner and does not take the key', async () => {
      const [a, b] = await trio();
      const key = uniqueKey('renew-other');
      await a.acquire(key, 'A', ttlMs);
      expect(await b.renew(key, 'B', ttlMs)).toBe(false);
      expect(await b.owner(key)).toBe('A');
    });

    it('a transfer from an owner who does not hold the key returns false and moves nothing', async () => {
      const [a, b] = await trio();
      const key = uniqueKey('transfer-lost');
      await a.acquire(key, 'C', ttlMs);
      expect(await b.transfer(key, 'A', 'B', ttlMs)).toBe(false);
      expect(await b.record(key)).toStrictEqual(recordOf('C', withMetadata));
      expect(await b.transfer(uniqueKey('transfer-free'), 'A', 'B', ttlMs)).toBe(false);
    });

    it('a transfer records the new holder, and the old one can no longer renew', async () => {
      const [a, b] = await trio();
      const key = uniqueKey('transfer');
      await a.acquire(key, 'A', ttlMs);
      expect(await a.transfer(key, 'A', 'B', ttlMs)).toBe(true);
      expect(await b.record(key)).toStrictEqual(recordOf('B', withMetadata));
      expect(await a.renew(key, 'A', ttlMs)).toBe(false);
      expect(await b.renew(key, 'B', ttlMs)).toBe(true);
    });

    it('racing transfers A→B and A→C from two clients: exactly one wins, the other answers false, the key is never free', async () => {
      const [a, b, reader] = await trio();
      for (let round = 0; round < 6; round++) {
        const key = uniqueKey('transfer-duel');
        // Alternate which client holds A's write, so both the provider that knows the tenure and the one that must read it race.
        const [holder, rival] = round % 2 ? [b, a] : [a, b];
        const race = await raceTransfers({ holder, rival, reader }, key, 'A', ['B', 'C'], ttlMs);
        expect(race.answers.filter(Boolean), `round ${round}: ${JSON.stringify(race)}`).toHaveLength(1);
        expect(race.owner).toBe(race.answers[0] ? 'B' : 'C');
        expect(race.sawFree).toBe(false);
        expect(await reader.record(key)).toStrictEqual(recordOf(race.owner!, withMetadata));
      }
    });

    it('under contention a transfer never leaves the key free and never lets a contender in', async () => {
      const [a, b, reader] = await trio();
      const key = uniqueKey('transfer-race');
      await a.acquire(key, 'A', ttlMs);
      let stop = false;
      const seen = new Set<string | undefined>();
      const poll = (async () => {
        while (!stop) seen.add(await reader.owner(key));
      })();
      const contenders = Array.from({ length: 5 }, async (_, i) => {
        const wins: string[] = [];
        while (!stop) if ((await b.acquire(key, `contender-${i}`, ttlMs)).acquired) wins.push(`contender-${i}`);
        return wins;
      });
      expect(await a.transfer(key, 'A', 'B', ttlMs)).toBe(true);
      expect(await a.transfer(key, 'B', 'C', ttlMs)).toBe(true);
      stop = true;
      await poll;
      expect((await Promise.all(contenders)).flat()).toEqual([]);
      expect(seen.has(undefined)).toBe(false);
      expect(await reader.owner(key)).toBe('C');
    });
  });

  // Time-bound properties, run side by side: each waits out real TTLs on keys and clients of its own.
  describe.concurrent(`${variant}: TTL — never early from the send time, bounded late, extended by every refresh`, () => {
    it('a free key reads as undefined; an acquired one never expires before its TTL and is gone within the late bound', async () => {
      const [a, b, reader] = await trio();
      expect(await reader.owner(uniqueKey('none'))).toBeUndefined();
      const key = uniqueKey('expire');
      const sentAt = performance.now();
      await a.acquire(key, 'A', ttlMs);
      const seen = await observeExpiry(() => reader.owner(key), 'A', expiryTimeoutMs);
      expect(seen.goneAt - sentAt).toBeGreaterThanOrEqual(ttlMs);
      expect(seen.lastSeenSentAt - sentAt).toBeLessThanOrEqual(ttlMs + expirySlackMs);
      expect(await b.acquire(key, 'B', ttlMs)).toMatchObject({ acquired: true, owner: 'B' });
    });

    it('renew returns false once the lease expired, and does not resurrect it', async () => {
      const [a, , reader] = await trio();
      const key = uniqueKey('renew-expired');
      await a.acquire(key, 'A', ttlMs);
      await observeExpiry(() => reader.owner(key), 'A', expiryTimeoutMs);
      expect(await a.renew(key, 'A', ttlMs)).toBe(false);
      expect(await reader.owner(key)).toBeUndefined();
    });

    /**
     * Refreshes the key with `refresh` past the first write's lease, then checks it is still held and — from the
     * SEND time of the last refresh — that it never expires early and is gone within the late bound.
     */
    async function extendsPastFirstLease(calls: LeaseCalls, reader: LeaseCalls, key: string, refresh: () => Promise<boolean>, holderAtEnd: () => string) {
      const firstSentAt = performance.now();
      expect(await calls.acquire(key, 'A', ttlMs)).toMatchObject({ acquired: true });
      const { checkAt, lastSentAt, answers } = await refreshPastFirstLease(firstSentAt, subject, refresh);
      expect(answers.every(Boolean), `refresh answers ${answers}`).toBe(true);
      await elapseUntil(checkAt);
      const readSentAt = performance.now();
      expect(await reader.owner(key), 'still held after the first lease is certainly gone').toBe(holderAtEnd());
      expect(readSentAt, 'the check ran inside the last refresh guarantee').toBeLessThan(lastSentAt + ttlMs);
      const seen = await observeExpiry(() => reader.owner(key), holderAtEnd(), expiryTimeoutMs);
      expect(seen.goneAt - lastSentAt).toBeGreaterThanOrEqual(ttlMs);
      expect(seen.lastSeenSentAt - lastSentAt).toBeLessThanOrEqual(ttlMs + expirySlackMs);
    }

    it('renew extends the lease: still held past the life of the first lease, and never early from the last renew', async () => {
      const [a, , reader] = await trio();
      const key = uniqueKey('renew');
      await extendsPastFirstLease(a, reader, key, () => a.renew(key, 'A', ttlMs), () => 'A');
    });

    it('re-acquire by the holder extends the lease the same way', async () => {
      const [a, b, reader] = await trio();
      const key = uniqueKey('reacquire-ttl');
      let turn = 0;
      // From both clients in turn: a client that did not write the key must extend it too.
      await extendsPastFirstLease(a, reader, key, async () => (await (turn++ % 2 ? a : b).acquire(key, 'A', ttlMs)).acquired, () => 'A');
    });

    it('transfer gives the new holder a fresh TTL: a chain of hand-overs keeps the key past the first lease', async () => {
      const [a, b, reader] = await trio();
      const key = uniqueKey('transfer-ttl');
      let holder = 'A';
      await extendsPastFirstLease(
        a,
        reader,
        key,
        async () => {
          const next = holder === 'A' ? 'B' : 'A';
          const moved = await (next === 'B' ? a : b).transfer(key, holder, next, ttlMs);
          if (moved) holder = next;
          return moved;
        },
        () => holder,
      );
    });

    it('negative control: a renew that answers true without extending loses the key by the same check', async () => {
      const [a, , reader] = await trio();
      const key = uniqueKey('never-extends');
      const firstSentAt = performance.now();
      await a.acquire(key, 'A', ttlMs);
      // The broken renew: makes a read (a round trip, like a real renew) and says yes without extending anything —
      // what a provider that never extends would answer. (Answering from the read itself raced the first lease's
      // end: a refresh sent a whole ttl after the first write may find the key already gone.)
      const { checkAt, answers } = await refreshPastFirstLease(firstSentAt, subject, async () => {
        await a.owner(key);
        return true;
      });
      expect(answers.every(Boolean)).toBe(true);
      await elapseUntil(checkAt);
      expect(await reader.owner(key)).toBeUndefined();
    });
  });

  describe(`${variant}: keys and owners are arbitrary strings`, () => {
    it('keys with NUL bytes and unicode round-trip, and "a" and "a\\u0000b" are different leases', async () => {
      const [a, , reader] = await trio();
      const base = uniqueKey('nul');
      const keys = [base, `${base}\u0000thread`, `${base}\u0000`, `${base}/résumé/线程/🧵`];
      for (const [i, key] of keys.entries()) {
        expect(await a.acquire(key, `owner-${i}`, ttlMs)).toMatchObject({ acquired: true });
      }
      for (const [i, key] of keys.entries()) expect(await reader.record(key)).toStrictEqual(recordOf(`owner-${i}`, withMetadata));
    });

    it("Mastra's thread keys and long JSON-shaped owners round-trip exactly", async () => {
      const [a, b] = await trio();
      const key = `${uniqueKey('resource')}\u0000thread-1`;
      const owner = `mastra-thread-owner:${JSON.stringify({ runId: 'r'.repeat(200), pid: 1, note: 'ü "quoted" \u0000' })}`;
      expect(await a.acquire(key, owner, ttlMs)).toEqual(expect.objectContaining({ acquired: true, owner }));
      expect(await b.owner(key)).toBe(owner);
      expect(await b.acquire(key, 'other', ttlMs)).toStrictEqual({ acquired: false, owner });
    });
  });

  if (withMetadata) metadataContract(variant, subject);
}

/**
 * The run-metadata extension: a lease is bound to an owner AND its run's metadata, compared exactly, `undefined`
 * matching only a lease stored without metadata (the semantics a closed, unmerged proposal for Mastra's Redis
 * backend pinned in its tests: "keeps metadata coherent across renew, transfer, and release", "never interprets a
 * JSON-looking legacy owner").
 */
function metadataContract(variant: string, subject: ContractSubject): void {
  const { ttlMs } = subject;
  const pair = async () => (await subject.clients(2)) as [LeaseRecordProvider, LeaseRecordProvider];

  describe(`${variant}: metadata must match exactly`, () => {
    it('the same owner with other metadata, on another client: acquire is denied naming the owner, renew false, release a no-op, transfer false', async () => {
      const [a, b] = await pair();
      const key = uniqueKey('other-run');
      expect(await a.acquireLease(key, 'owner-a', ttlMs, 'run-a')).toMatchObject({ acquired: true, owner: 'owner-a' });
      expect(await b.acquireLease(key, 'owner-a', ttlMs, 'wrong-run')).toStrictEqual({ acquired: false, owner: 'owner-a' });
      expect(await b.renewLease(key, 'owner-a', ttlMs, 'wrong-run')).toBe(false);
      await b.releaseLease(key, 'owner-a', 'wrong-run');
      expect(await b.transferLease(key, 'owner-a', 'owner-b', ttlMs, 'wrong-run', 'run-b')).toBe(false);
      expect(await b.getLeaseRecord(key)).toStrictEqual({ owner: 'owner-a', metadata: 'run-a' });
      // …and the right metadata, from that other client, does each of them.
      expect(await b.renewLease(key, 'owner-a', ttlMs, 'run-a')).toBe(true);
      expect(await b.transferLease(key, 'owner-a', 'owner-b', ttlMs, 'run-a', 'run-b')).toBe(true);
      expect(await a.getLeaseRecord(key)).toStrictEqual({ owner: 'owner-b', metadata: 'run-b' });
      await a.releaseLease(key, 'owner-b', 'wrong-run');
      expect(await a.getLeaseOwner(key)).toBe('owner-b');
      await a.releaseLease(key, 'owner-b', 'run-b');
      expect(await b.getLeaseRecord(key)).toBeUndefined();
    });

    it('undefined metadata matches only a lease stored without: neither side acts on the other', async () => {
      const [a, b] = await pair();
      const scoped = uniqueKey('scoped');
      await a.acquireLease(scoped, 'owner-a', ttlMs, 'run-a');
      expect(await b.acquireLease(scoped, 'owner-a', ttlMs)).toStrictEqual({ acquired: false, owner: 'owner-a' });
      expect(await b.renewLease(scoped, 'owner-a', ttlMs)).toBe(false);
      await b.releaseLease(scoped, 'owner-a');
      expect(await b.transferLease(scoped, 'owner-a', 'owner-b', ttlMs)).toBe(false);
      expect(await b.getLeaseRecord(scoped)).toStrictEqual({ owner: 'owner-a', metadata: 'run-a' });

      const plain = uniqueKey('plain');
      await a.acquireLease(plain, 'owner-a', ttlMs);
      expect(await b.acquireLease(plain, 'owner-a', ttlMs, 'run-a')).toStrictEqual({ acquired: false, owner: 'owner-a' });
      expect(await b.renewLease(plain, 'owner-a', ttlMs, 'run-a')).toBe(false);
      await b.releaseLease(plain, 'owner-a', 'run-a');
      expect(await b.transferLease(plain, 'owner-a', 'owner-b', ttlMs, 'run-a', 'run-b')).toBe(false);
      expect(await b.getLeaseRecord(plain)).toStrictEqual({ owner: 'owner-a' });
      // The empty string is a value, not "none".
      expect(await b.renewLease(plain, 'owner-a', ttlMs, '')).toBe(false);
    });

    it('getLeaseRecord returns { owner } with no metadata key for a lease taken without, { owner, metadata } with', async () => {
      const [a, b] = await pair();
      const plain = uniqueKey('record-plain');
      const scoped = uniqueKey('record-scoped');
      const empty = uniqueKey('record-empty');
      await a.acquireLease(plain, 'owner-a', ttlMs);
      await a.acquireLease(scoped, 'owner-a', ttlMs, 'run-a');
      await a.acquireLease(empty, 'owner-a', ttlMs, '');
      const record = await b.getLeaseRecord(plain);
      expect(record).toStrictEqual({ owner: 'owner-a' });
      expect(Object.keys(record!)).toEqual(['owner']);
      expect(await b.getLeaseRecord(scoped)).toStrictEqual({ owner: 'owner-a', metadata: 'run-a' });
      expect(await b.getLeaseRecord(empty)).toStrictEqual({ owner: 'owner-a', metadata: '' });
      expect(await b.getLeaseRecord(uniqueKey('record-none'))).toBeUndefined();
    });

    it('a transfer stores toOwner with toMetadata: with, without, and from a lease taken without metadata', async () => {
      const [a, b] = await pair();
      const key = uniqueKey('transfer-metadata');
      await a.acquireLease(key, 'owner-a', ttlMs, 'run-a');
      expect(await b.transferLease(key, 'owner-a', 'owner-b', ttlMs, 'run-a', 'run-b')).toBe(true);
      expect(await a.getLeaseRecord(key)).toStrictEqual({ owner: 'owner-b', metadata: 'run-b' });
      expect(await a.transferLease(key, 'owner-b', 'owner-c', ttlMs, 'run-b')).toBe(true);
      expect(await b.getLeaseRecord(key)).toStrictEqual({ owner: 'owner-c' });
      // A lease without metadata is upgraded by a transfer naming no fromMetadata (how a caller migrates older leases).
      expect(await b.transferLease(key, 'owner-c', 'owner-d', ttlMs, undefined, 'run-d')).toBe(true);
      expect(await a.getLeaseRecord(key)).toStrictEqual({ owner: 'owner-d', metadata: 'run-d' });
      // Handing a lease to the very same owner with other metadata is a hand-over, not a renew.
      expect(await a.transferLease(key, 'owner-d', 'owner-d', ttlMs, 'run-d', 'run-e')).toBe(true);
      expect(await b.getLeaseRecord(key)).toStrictEqual({ owner: 'owner-d', metadata: 'run-e' });
      expect(await b.renewLease(key, 'owner-d', ttlMs, 'run-d')).toBe(false);
    });

    it('an owner that looks like a record is never read as owner plus metadata', async () => {
      const [a, b] = await pair();
      const key = uniqueKey('json-owner');
      const json = '{"owner":"parsed-owner","metadata":"parsed-run"}';
      await a.acquireLease(key, json, ttlMs);
      expect(await b.getLeaseRecord(key)).toStrictEqual({ owner: json });
      expect(await b.transferLease(key, 'parsed-owner', 'new-owner', ttlMs, 'parsed-run', 'new-run')).toBe(false);
      expect(await b.getLeaseRecord(key)).toStrictEqual({ owner: json });
      expect(await b.transferLease(key, json, 'new-owner', ttlMs, undefined, 'new-run')).toBe(true);
      expect(await a.getLeaseRecord(key)).toStrictEqual({ owner: 'new-owner', metadata: 'new-run' });
    });

    it('owner and metadata are kept apart: ("ab", "c") and ("a", "bc") are different holders', async () => {
      const [a, b] = await pair();
      const key = uniqueKey('boundary');
      await a.acquireLease(key, 'ab', ttlMs, 'c');
      expect(await b.acquireLease(key, 'a', ttlMs, 'bc')).toStrictEqual({ acquired: false, owner: 'ab' });
      expect(await b.renewLease(key, 'a', ttlMs, 'bc')).toBe(false);
      expect(await b.renewLease(key, 'abc', ttlMs)).toBe(false);
      expect(await b.getLeaseRecord(key)).toStrictEqual({ owner: 'ab', metadata: 'c' });
    });

    it('metadata round-trips exactly: NUL, unicode, and the empty string distinct from none', async () => {
      const [a, b] = await pair();
      for (const metadata of [runOf('x'), '\u0000', '線程-😀-\u00ff', '']) {
        const key = uniqueKey('roundtrip');
        await a.acquireLease(key, 'owner-a', ttlMs, metadata);
        expect(await b.getLeaseRecord(key)).toStrictEqual({ owner: 'owner-a', metadata });
        expect(await b.renewLease(key, 'owner-a', ttlMs, metadata)).toBe(true);
      }
    });
  });
}
