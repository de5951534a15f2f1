import { describe, expect, it } from 'vitest';
import { FragmentJoiner } from './fragment-joiner.js';

/** An event of revision `rev`, told apart by `key`. */
const ev = (rev: number, key: string) => ({ kv: { mod_revision: String(rev) }, key });
const keys = (events: Array<{ key: string }>) => events.map((e) => e.key);

describe('fragment joiner', () => {
  it('passes an unfragmented response through whole', () => {
    const j = new FragmentJoiner<ReturnType<typeof ev>>();
    expect(keys(j.join(1, [ev(5, 'a'), ev(6, 'b')], false))).toEqual(['a', 'b']);
    expect(j.holding(1)).toBe(0);
  });

  it('delivers the complete revisions of a fragment at once and holds its last revision for the next fragment', () => {
    const j = new FragmentJoiner<ReturnType<typeof ev>>();
    // etcd cut one response of revisions 5, 6 and 7 (7 is one transaction of three events) in three places.
    expect(keys(j.join(1, [ev(5, 'a'), ev(6, 'b'), ev(7, 'c1')], true))).toEqual(['a', 'b']);
    expect(j.holding(1)).toBe(1);
    expect(keys(j.join(1, [ev(7, 'c2')], true))).toEqual([]);
    expect(j.holding(1)).toBe(2);
    expect(keys(j.join(1, [ev(7, 'c3')], false))).toEqual(['c1', 'c2', 'c3']);
    expect(j.holding(1)).toBe(0);
  });

  it('never splits a revision, wherever etcd cuts', () => {
    // Every way to cut one response (revisions 1..4, two events each) into fragments of any sizes.
    const response = [1, 1, 2, 2, 3, 3, 4, 4].map((rev, i) => ev(rev, `${rev}.${i % 2}`));
    for (let mask = 0; mask < 1 << (response.length - 1); mask++) {
      const j = new FragmentJoiner<ReturnType<typeof ev>>();
      const delivered: Array<ReturnType<typeof ev>[]> = [];
      let start = 0;
      for (let i = 0; i < response.length; i++) {
        const last = i === response.length - 1;
        if (!last && (mask & (1 << i)) === 0) continue;
        const out = j.join(7, response.slice(start, i + 1), !last);
        if (out.length > 0) delivered.push(out);
        start = i + 1;
      }
      expect(delivered.flat()).toEqual(response);
      for (const batch of delivered) {
        // Each delivered batch ends on a revision boundary: no later batch holds an event of its last revision.
        const lastRev = batch.at(-1)!.kv.mod_revision;
        const later = delivered.slice(delivered.indexOf(batch) + 1).flat();
        expect(later.some((e) => e.kv.mod_revision === lastRev)).toBe(false);
      }
    }
  });

  it('keeps the fragments of different watches apart', () => {
    const j = new FragmentJoiner<ReturnType<typeof ev>>();
    expect(keys(j.join(1, [ev(5, 'a1')], true))).toEqual([]);
    expect(keys(j.join(2, [ev(5, 'b1'), ev(6, 'b2')], false))).toEqual(['b1', 'b2']);
    expect(keys(j.join(1, [ev(5, 'a2')], false))).toEqual(['a1', 'a2']);
  });

  it('forgets held events when a watch or the stream ends', () => {
    const j = new FragmentJoiner<ReturnType<typeof ev>>();
    j.join(1, [ev(5, 'a1')], true);
    j.join(2, [ev(5, 'b1')], true);
    j.drop(1);
    expect(keys(j.join(1, [ev(6, 'x')], false))).toEqual(['x']);
    j.clear();
    expect(j.holding(2)).toBe(0);
    expect(keys(j.join(2, [ev(6, 'y')], false))).toEqual(['y']);
  });
});
