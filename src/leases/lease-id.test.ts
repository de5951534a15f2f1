import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TTL_MS } from '../keys/ttl.js';
import { ID_UNIT_MS, LeaseIdSpace, TAG_BITS } from './lease-id.js';

const origin = Date.UTC(2026, 10, 30, 12);
const MAX_TAG = Number((1n << TAG_BITS) - 1n);

describe('lease id space', () => {
  it('orders ids by the expiry they stand for', () => {
    const space = new LeaseIdSpace(origin, 12345);
    const ids = [0, 16, 999, 15_000, 15_016, 86_400_000].map((t) => BigInt(space.idFor(t)));
    expect([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('never ranks an earlier expiry above a later one, fractions and shared units included', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_TAG }), fc.double({ min: 0, max: 1e10, noNaN: true }), fc.double({ min: 0, max: 1e10, noNaN: true }), (tag, a, b) => {
        const space = new LeaseIdSpace(origin, tag);
        const [early, late] = a <= b ? [a, b] : [b, a];
        expect(BigInt(space.idFor(early)) <= BigInt(space.idFor(late))).toBe(true);
      }),
    );
  });

  it('rounds the expiry down to a whole unit, so an id never claims a later one than the lease has', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.double({ min: 0, max: 1e11, noNaN: true }), (originShift, notBefore) => {
        const space = new LeaseIdSpace(origin + originShift, 7);
        const claimed = space.notBeforeOf(space.idFor(notBefore))!;
        expect(claimed).toBe(space.floor(notBefore));
        expect(claimed).toBeLessThanOrEqual(notBefore);
        expect(claimed).toBeGreaterThan(notBefore - ID_UNIT_MS);
        expect(space.idFor(claimed)).toBe(space.idFor(notBefore)); // the floored value stands for the same id
      }),
    );
  });

  it('never claims a later moment when the sum of origin and notBefore rounds up onto a unit boundary', () => {
    // origin + notBefore is not exact in floating point: here it lands on the boundary 1e11 + origin although the
    // exact sum lies just below it
    const space = new LeaseIdSpace(Date.UTC(2026, 10, 30, 12), 7);
    const notBefore = 99_999_999_999.99998;
    expect(space.floor(notBefore)).toBeLessThanOrEqual(notBefore);
    expect(space.notBeforeOf(space.idFor(notBefore))!).toBeLessThanOrEqual(notBefore);
  });

  it('keeps every id of one provider inside its own range, positive, and tells foreign ids apart', () => {
    const space = new LeaseIdSpace(origin, MAX_TAG);
    const id = BigInt(space.idFor(123_456));
    expect(id > 0n && id < 1n << 63n).toBe(true);
    expect(BigInt(space.highest) < 1n << 63n).toBe(true);
    expect(id >= BigInt(space.lowest) && id <= BigInt(space.highest)).toBe(true);
    const other = new LeaseIdSpace(origin, 1);
    expect(space.contains(other.idFor(123_456))).toBe(false);
    expect(space.contains('7587871234567890123')).toBe(false); // a server-assigned id
    expect(space.contains('0')).toBe(false);
  });

  it('ranges of different tags never overlap', () => {
    for (const tag of [1, 2, 12345, MAX_TAG - 1]) {
      const [low, high] = [new LeaseIdSpace(origin, tag), new LeaseIdSpace(origin, tag + 1)];
      expect(BigInt(high.lowest)).toBe(BigInt(low.highest) + 1n);
    }
  });

  it('has room for the longest ttl for decades: a lease of ten years granted in 2080 still gets an id', () => {
    const space = new LeaseIdSpace(Date.UTC(2080, 0, 1), MAX_TAG);
    expect(() => space.idFor(MAX_TTL_MS + 5_000)).not.toThrow();
    expect(() => new LeaseIdSpace(Date.UTC(2094, 0, 1), 1).idFor(0)).toThrow(RangeError);
  });

  it('ranks a restarted provider above its previous life when both drew the same tag', () => {
    const before = new LeaseIdSpace(origin, 99);
    const after = new LeaseIdSpace(origin + 60_000, 99);
    expect(BigInt(after.idFor(0)) > BigInt(before.idFor(59_000))).toBe(true);
  });

  it(`refuses tags outside ${TAG_BITS} bits`, () => {
    expect(() => new LeaseIdSpace(origin, 0)).toThrow(RangeError);
    expect(() => new LeaseIdSpace(origin, MAX_TAG + 1)).toThrow(RangeError);
    expect(() => new LeaseIdSpace(origin, MAX_TAG)).not.toThrow();
  });
});
