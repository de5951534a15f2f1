import { describe, expect, it } from 'vitest';
import { EventIds, randomPublisherId } from './event-id.js';

describe('event ids', () => {
  it('sort in publish order within one publisher', () => {
    const ids = new EventIds('abcdefghijkl');
    const made = Array.from({ length: 300 }, () => ids.next());
    expect([...made].sort()).toEqual(made);
    expect(made[0]).toBe('abcdefghijkl-0000000000000001');
    expect(made[255]).toBe('abcdefghijkl-0000000000000100');
  });

  it('give every instance its own publisher id', () => {
    const seen = new Set(Array.from({ length: 1000 }, () => randomPublisherId()));
    expect(seen.size).toBe(1000);
    for (const id of seen) expect(id).toMatch(/^[a-z2-7]{12}$/);
  });

  it('refuse a publisher id that could break the key layout', () => {
    expect(() => new EventIds('a/b')).toThrow(RangeError);
  });
});
