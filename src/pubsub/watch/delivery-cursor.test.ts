import { describe, expect, it } from 'vitest';
import { DeliveryCursor } from './delivery-cursor.js';

const k = (s: string) => Buffer.from(s);

describe('delivery cursor', () => {
  it('accepts each (revision, key) once and nothing older', () => {
    const c = new DeliveryCursor();
    expect(c.accept('5', k('a'))).toBe(true);
    expect(c.accept('5', k('b'))).toBe(true);
    expect(c.accept('5', k('a'))).toBe(false);
    expect(c.accept('4', k('z'))).toBe(false);
    expect(c.accept('6', k('a'))).toBe(true);
  });

  it('after a compaction, a re-read delivers the rest of a half-delivered revision and what came after, once', () => {
    const c = new DeliveryCursor();
    c.accept('7', k('p-1'));
    c.accept('7', k('p-2')); // the subscriber saw part of revision 7, then lost its watch
    const reread = [['7', 'p-1'], ['7', 'p-2'], ['7', 'p-3'], ['9', 'q-1']] as const;
    expect(reread.filter(([rev, key]) => c.accept(rev, k(key)))).toEqual([['7', 'p-3'], ['9', 'q-1']]);
    expect(reread.filter(([rev, key]) => c.accept(rev, k(key)))).toEqual([]);
  });

  it('a latest boundary counts its whole revision as seen', () => {
    const c = new DeliveryCursor();
    c.skipThrough('10');
    expect(c.accept('10', k('a'))).toBe(false);
    expect(c.accept('11', k('a'))).toBe(true);
    c.skipThrough('3');
    expect(c.revision).toBe(11n);
  });
});
