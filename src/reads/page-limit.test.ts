import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_BOUNDS, firstPageLimit, kvWireBytes, nextPageLimit, shrunkPageLimit, worstCaseKeys } from './page-limit.js';

const bounds = { maxKeys: 1000, targetBytes: 1_000_000 };

describe('page limits', () => {
  it("the default page aims at a quarter of gRPC's 4 MiB receive limit", () => {
    expect(DEFAULT_PAGE_BOUNDS.targetBytes * 4).toBe(4 * 1024 * 1024);
  });

  it('the first page is small and never above maxKeys', () => {
    expect(firstPageLimit(bounds)).toBe(100);
    expect(firstPageLimit({ ...bounds, maxKeys: 7 })).toBe(7);
  });

  it('grows at most twofold per page, up to maxKeys, while pages stay small', () => {
    expect(nextPageLimit(100, 100, 100 * 300, bounds)).toBe(200);
    expect(nextPageLimit(800, 800, 800 * 300, bounds)).toBe(1000);
  });

  it('sizes the next page so its bytes stay near the target, whatever the values weigh', () => {
    // 100 KiB per key: 9 keys fit in 1 MB.
    expect(nextPageLimit(100, 10, 10 * 100_000, bounds)).toBe(10);
    expect(nextPageLimit(10, 10, 10 * 100_000, bounds) * 100_000).toBeLessThanOrEqual(bounds.targetBytes);
  });

  it('never drops below one key, even for a key larger than the target', () => {
    expect(nextPageLimit(4, 1, 5_000_000, bounds)).toBe(1);
  });

  it('an empty page keeps the limit', () => {
    expect(nextPageLimit(300, 0, 0, bounds)).toBe(300);
  });

  it('a page over the size limit is asked for again with half the keys; one key alone cannot shrink', () => {
    expect(shrunkPageLimit(100)).toBe(50);
    expect(shrunkPageLimit(3)).toBe(1);
    expect(shrunkPageLimit(1)).toBeUndefined();
  });

  it('with the largest entry and the receive limit known, the first page fits that limit even if every key is that large', () => {
    const events = { maxEntryBytes: 1024 * 1024, receiveLimitBytes: 4 * 1024 * 1024 };
    // Four 1 MiB events and their framing would pass 4 MiB; three fit.
    expect(worstCaseKeys(events)).toBe(3);
    expect(firstPageLimit({ ...bounds, fit: events })).toBe(3);
    expect(3 * kvWireBytes({ key: Buffer.alloc(0), value: Buffer.alloc(1024 * 1024) })).toBeLessThan(4 * 1024 * 1024);
    // A client that accepts what etcd sends keeps the usual first page.
    expect(firstPageLimit({ ...bounds, fit: { maxEntryBytes: 1024 * 1024, receiveLimitBytes: 2 ** 31 - 1 } })).toBe(100);
    // An entry larger than the limit still gets one key per page.
    expect(worstCaseKeys({ maxEntryBytes: 8 * 1024 * 1024, receiveLimitBytes: 4 * 1024 * 1024 })).toBe(1);
  });

  it('after an oversize page, the next one fits for sure when the largest entry is known', () => {
    const events = { maxEntryBytes: 1024 * 1024, receiveLimitBytes: 4 * 1024 * 1024 };
    expect(shrunkPageLimit(24, events)).toBe(3);
    expect(shrunkPageLimit(4, events)).toBe(2);
    expect(shrunkPageLimit(1, events)).toBeUndefined();
  });

  it('counts key, value and a fixed overhead per key-value', () => {
    expect(kvWireBytes({ key: Buffer.alloc(10), value: Buffer.alloc(90) })).toBe(148);
  });
});
