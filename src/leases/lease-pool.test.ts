import { describe, expect, it } from 'vitest';
import { LeasePool } from './lease-pool.js';

function fakeClock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('lease pool', () => {
  it('shares one grant among concurrent callers with the same deadline bucket', async () => {
    const clock = fakeClock();
    let grants = 0;
    const pool = new LeasePool(async (ttl) => ({ id: String(++grants), ttlSeconds: ttl }), 1000, undefined, clock.now);
    const ids = await Promise.all(Array.from({ length: 50 }, () => pool.leaseFor(15_000, clock.now())));
    expect(new Set(ids).size).toBe(1);
    expect(grants).toBe(1);
  });

  it('keeps the number of leases bounded by buckets, not by keys', async () => {
    const clock = fakeClock();
    let grants = 0;
    const pool = new LeasePool(async (ttl) => ({ id: String(++grants), ttlSeconds: ttl }), 1000, undefined, clock.now);
    for (let i = 0; i < 20_000; i++) {
      await pool.leaseFor(15_000, clock.now());
      clock.advance(3); // 20k calls over 60 s
    }
    // successors are spaced one bucket apart: about one grant per bucket of elapsed time (60 s / 1 s),
    // and only leases that can still serve a new key are kept
    expect(grants).toBeLessThanOrEqual(65);
    expect(pool.size).toBeLessThanOrEqual(20);
  });

  it('uses the TTL the server granted, not the one requested', async () => {
    const clock = fakeClock();
    const pool = new LeasePool(async () => ({ id: 'min', ttlSeconds: 5 }), 1000, undefined, clock.now);
    await pool.leaseFor(100, 0);
    clock.advance(3000);
    // the server's 5 s minimum made this lease last until 5000: it fits a need of 3000+100 only within slack
    expect(await pool.leaseFor(1900, clock.now())).toBe('min');
  });

  it('forgets an invalidated lease and grants a new one', async () => {
    const clock = fakeClock();
    let grants = 0;
    const pool = new LeasePool(async (ttl) => ({ id: String(++grants), ttlSeconds: ttl }), 1000, undefined, clock.now);
    const first = await pool.leaseFor(5000, 0);
    pool.invalidate(first);
    expect(await pool.leaseFor(5000, 0)).not.toBe(first);
  });

  it('a failed grant rejects its waiters and the next call tries again', async () => {
    let calls = 0;
    const pool = new LeasePool(async (ttl) => {
      if (++calls === 1) throw new Error('no quorum');
      return { id: 'ok', ttlSeconds: ttl };
    }, 1000, undefined, () => 0);
    await expect(pool.leaseFor(5000, 0)).rejects.toThrow('no quorum');
    expect(await pool.leaseFor(5000, 0)).toBe('ok');
  });
});
