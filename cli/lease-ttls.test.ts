import { describe, expect, it } from 'vitest';
import { LeaseTtls } from './lease-ttls.js';

function counting(ttl = 30_000) {
  const asked: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const lookup = async (id: string): Promise<number> => {
    asked.push(id);
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight--;
    return ttl;
  };
  return { asked, lookup, maxInFlight: () => maxInFlight };
}

describe('LeaseTtls', () => {
  it('asks about each lease once while its answer is fresh, however many keys share it', async () => {
    const fake = counting();
    let now = 0;
    const ttls = new LeaseTtls(fake.lookup, { now: () => now });
    expect(await ttls.resolve(['1', '2', '1', '1'])).toEqual(new Map([['1', 30_000], ['2', 30_000]]));
    now = 900;
    await ttls.resolve(['2', '1']);
    expect(fake.asked).toEqual(['1', '2']);
  });

  it('asks again once an answer is older than freshMs, so a long listing never shows stale time left', async () => {
    const fake = counting();
    let now = 0;
    const ttls = new LeaseTtls(fake.lookup, { now: () => now, freshMs: 1000 });
    await ttls.resolve(['1']);
    now = 1500;
    await ttls.resolve(['1']);
    expect(fake.asked).toEqual(['1', '1']);
  });

  it('a key without a lease (id 0) has a null TTL and costs no request', async () => {
    const fake = counting();
    expect(await new LeaseTtls(fake.lookup).resolve(['0'])).toEqual(new Map([['0', null]]));
    expect(fake.asked).toEqual([]);
  });

  it('runs at most `concurrency` lookups at once', async () => {
    const fake = counting();
    await new LeaseTtls(fake.lookup, { concurrency: 4 }).resolve(Array.from({ length: 50 }, (_, i) => String(i + 1)));
    expect(fake.asked).toHaveLength(50);
    expect(fake.maxInFlight()).toBe(4);
  });
});
