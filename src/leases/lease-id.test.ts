import { describe, expect, it } from 'vitest';
import { LeaseIdSpace } from './lease-id.js';

const origin = Date.UTC(2026, 10, 30, 12);

describe('lease id space', () => {
  it('orders ids by the expiry they stand for', () => {
    const space = new LeaseIdSpace(origin, 12345);
    const ids = [0, 1, 999, 15_000, 15_001, 86_400_000].map((t) => BigInt(space.idFor(t)));
    expect([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('floors the expiry, so an id never claims a later one than the lease has', () => {
    const space = new LeaseIdSpace(origin, 7);
    expect(space.notBeforeOf(space.idFor(15_000.9))).toBe(15_000);
    expect(space.notBeforeOf(space.idFor(15_000))).toBe(15_000);
  });

  it('keeps every id of one provider inside its own range, positive, and tells foreign ids apart', () => {
    const space = new LeaseIdSpace(origin, (1 << 22) - 1);
    const id = BigInt(space.idFor(123_456));
    expect(id > 0n && id < 1n << 63n).toBe(true);
    expect(id >= BigInt(space.lowest) && id <= BigInt(space.highest)).toBe(true);
    const other = new LeaseIdSpace(origin, 1);
    expect(space.contains(other.idFor(123_456))).toBe(false);
    expect(space.contains('7587871234567890123')).toBe(false); // a server-assigned id
    expect(space.contains('0')).toBe(false);
  });

  it('ranks a restarted provider above its previous life when both drew the same tag', () => {
    const before = new LeaseIdSpace(origin, 99);
    const after = new LeaseIdSpace(origin + 60_000, 99);
    expect(BigInt(after.idFor(0)) > BigInt(before.idFor(59_000))).toBe(true);
  });

  it('refuses tags outside 22 bits', () => {
    expect(() => new LeaseIdSpace(origin, 0)).toThrow(RangeError);
    expect(() => new LeaseIdSpace(origin, 1 << 22)).toThrow(RangeError);
  });
});
