import { describe, expect, it } from 'vitest';
import { LeaseClock } from '../clock/lease-clock.js';
import { LeaseIdTakenError } from '../errors/lease-id-taken.js';
import { isLeaseError } from '../errors/lease-error.js';
import { LeaseIdSpace } from './lease-id.js';
import { LeasePool, type GrantFn } from './lease-pool.js';

function fakeClock() {
  const raw = { monotonic: 0, wall: Date.UTC(2026, 0, 1) };
  const clock = new LeaseClock({ monotonic: () => raw.monotonic, wall: () => raw.wall });
  return {
    clock,
    now: () => clock.now(),
    advance: (ms: number) => {
      raw.monotonic += ms;
      raw.wall += ms;
    },
    suspend: (ms: number) => {
      raw.wall += ms; // the monotonic clock stands still while the machine sleeps
    },
    stepWall: (ms: number) => {
      raw.wall += ms; // NTP or an operator: no time passed (the process cannot tell this from a suspend)
    },
  };
}

function poolWith(t: ReturnType<typeof fakeClock>, grant: GrantFn = async () => {}) {
  const ids = new LeaseIdSpace(t.clock.wallOrigin, 4242);
  return { pool: new LeasePool(grant, 1000, t.clock, ids), ids };
}

describe('lease pool', () => {
  it('shares one grant among concurrent callers with the same deadline bucket', async () => {
    const t = fakeClock();
    let grants = 0;
    const { pool } = poolWith(t, async () => void grants++);
    const leases = await Promise.all(Array.from({ length: 50 }, () => pool.leaseFor(15_000, t.clock.moment())));
    expect(new Set(leases.map((l) => l.id)).size).toBe(1);
    expect(grants).toBe(1);
  });

  it('keeps the number of leases bounded by buckets, not by keys', async () => {
    const t = fakeClock();
    let grants = 0;
    const { pool } = poolWith(t, async () => void grants++);
    for (let i = 0; i < 20_000; i++) {
      await pool.leaseFor(15_000, t.clock.moment());
      t.advance(3); // 20k calls over 60 s
    }
    // successors are spaced one bucket apart: about one grant per bucket of elapsed time (60 s / 1 s),
    // and only leases that can still serve a new key are kept
    expect(grants).toBeLessThanOrEqual(65);
    expect(pool.size).toBeLessThanOrEqual(20);
  });

  it("mints ids that encode each lease's notBefore, so a later-expiring lease has a larger id", async () => {
    const t = fakeClock();
    const { pool, ids } = poolWith(t);
    const first = await pool.leaseFor(5_000, t.clock.moment());
    t.advance(2_500);
    const second = await pool.leaseFor(5_000, t.clock.moment());
    expect(second.id).not.toBe(first.id);
    expect(BigInt(second.id) > BigInt(first.id)).toBe(true);
    expect(ids.notBeforeOf(first.id)).toBe(first.notBefore);
    expect(first.notBefore).toBeGreaterThanOrEqual(5_000);
  });

  it('keeps sharing leases when the server raises short TTLs to its minimum (notBefore is from the request)', async () => {
    const t = fakeClock();
    let grants = 0;
    const { pool } = poolWith(t, async () => void grants++); // whatever the server chose, the request's TTL is the bound
    for (let i = 0; i < 40; i++) {
      await pool.leaseFor(100, t.clock.moment());
      t.advance(10);
    }
    expect(grants).toBeLessThanOrEqual(2);
  });

  it('after a suspend, no longer hands out leases that only looked alive on the stopped monotonic clock', async () => {
    const t = fakeClock();
    const granted: number[] = [];
    const { pool } = poolWith(t, async (_ttl, _id, claims) => void granted.push(claims.notBefore));
    const before = await pool.leaseFor(6_000, t.clock.moment());
    t.suspend(4_000);
    const sent = t.clock.moment();
    const after = await pool.leaseFor(6_000, sent);
    expect(after.id).not.toBe(before.id);
    expect(after.notBefore).toBeGreaterThanOrEqual(sent.at + 6_000);
  });

  it('tries the next lower id when etcd already knows the chosen one', async () => {
    const t = fakeClock();
    const tried: string[] = [];
    const { pool } = poolWith(t, async (_ttl, id) => {
      tried.push(id);
      if (tried.length === 1) throw new LeaseIdTakenError(id, 'test');
    });
    const lease = await pool.leaseFor(5_000, t.clock.moment());
    expect(tried).toHaveLength(2);
    expect(BigInt(tried[1]!)).toBe(BigInt(tried[0]!) - 1n);
    expect(lease.id).toBe(tried[1]);
  });

  it('out of ids, rejects with a coded, retryable error, having never tried one below the need', async () => {
    const t = fakeClock();
    const claims: number[] = [];
    const { pool } = poolWith(t, async (_ttl, id, claimed) => {
      claims.push(claimed.notBefore);
      throw new LeaseIdTakenError(id, 'test');
    });
    const sent = t.clock.moment();
    const need = sent.at + 5_000;
    const failure = await Promise.resolve(pool.leaseFor(5_000, sent)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LeaseIdTakenError);
    expect(isLeaseError(failure) && [failure.code, failure.retryable]).toEqual(['ELEASE_UNAVAILABLE', true]);
    expect(claims.length).toBeGreaterThan(1);
    expect(Math.min(...claims)).toBeGreaterThanOrEqual(need);
  });

  it('a call that shared a grant which settled on a lower id gets a lease that covers its own need', async () => {
    const t = fakeClock();
    let grants = 0;
    // Seven ids in a row are taken: the grant settles 7 units (112 ms) below the notBefore it started with.
    const { pool } = poolWith(t, async (_ttl, id) => {
      if (++grants <= 7) throw new LeaseIdTakenError(id, 'test');
    });
    const starter = pool.leaseFor(5_000, t.clock.moment());
    t.advance(900); // joins the same grant: its need lies within a bucket below the grant's notBefore
    const sent = t.clock.moment();
    const joiner = pool.leaseFor(5_000, sent);
    expect(grants).toBe(1); // both wait for the one grant
    const [a, b] = await Promise.all([starter, joiner]);
    expect(a.notBefore).toBeGreaterThanOrEqual(5_000);
    expect(b.notBefore).toBeGreaterThanOrEqual(sent.at + 5_000);
    expect(b.id).not.toBe(a.id);
  });

  it('never asks etcd for one id twice, even for two leases with the same expiry', async () => {
    const t = fakeClock();
    const ids: string[] = [];
    const { pool } = poolWith(t, async (_ttl, id) => void ids.push(id));
    await pool.leaseFor(5_000, t.clock.moment());
    pool.invalidate(ids[0]!);
    await pool.leaseFor(5_000, t.clock.moment());
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });

  it('forgets an invalidated lease and grants a new one', async () => {
    const t = fakeClock();
    const { pool } = poolWith(t);
    const first = await pool.leaseFor(5000, t.clock.moment());
    pool.invalidate(first.id);
    t.advance(1);
    expect((await pool.leaseFor(5000, t.clock.moment())).id).not.toBe(first.id);
  });

  it('a failed grant rejects its waiters and the next call tries again', async () => {
    const t = fakeClock();
    let calls = 0;
    const { pool } = poolWith(t, async () => {
      if (++calls === 1) throw new Error('no quorum');
    });
    await expect(pool.leaseFor(5000, t.clock.moment())).rejects.toThrow('no quorum');
    await expect(pool.leaseFor(5000, t.clock.moment())).resolves.toBeDefined();
  });

  it('a forward wall-clock step between a call and its grant does not shorten the lease: it is sized on the steady scale', async () => {
    const t = fakeClock();
    const ttls: number[] = [];
    const { pool } = poolWith(t, async (ttl) => void ttls.push(ttl));
    await pool.leaseFor(6_000, t.clock.moment()); // a lease granted before the step
    const sent = t.clock.moment();
    t.advance(500); // the call waits (a retry, its turn on the key)
    t.stepWall(12_000);
    const lease = await pool.leaseFor(6_000, sent);
    // Only 500 ms really passed: the lease must still last 5.5 s from its grant, not 6 − 12.5 s (1 s, the floor).
    expect(ttls.at(-1)).toBeGreaterThanOrEqual(6);
    expect(lease.steadyNotBefore).toBeGreaterThanOrEqual(sent.steady + 6_000);
    expect(lease.notBefore).toBeGreaterThanOrEqual(sent.at + 6_000);
  });

  it('keeps a record of every lease it granted, on both scales, for as long as a key can be on it', async () => {
    const t = fakeClock();
    const { pool } = poolWith(t);
    const lease = await pool.leaseFor(5_000, t.clock.moment());
    expect(pool.record(lease.id)).toEqual(lease);
    expect(pool.record('12345')).toBeUndefined();
    t.advance(30_000);
    await pool.leaseFor(5_000, t.clock.moment()); // grants again, and forgets what no key can be on any more
    expect(pool.record(lease.id)).toBeUndefined();
  });
});
