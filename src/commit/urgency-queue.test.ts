import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UrgencyQueue, type Ranked } from './urgency-queue.js';

const item = (urgentAt: number, seq: number): Ranked => ({ urgentAt, seq, inQueue: false });

describe('urgency queue', () => {
  it('gives the most urgent first and the least urgent last, ties in arrival order', () => {
    const q = new UrgencyQueue<Ranked>();
    const [a, b, c, d] = [item(5, 0), item(1, 1), item(5, 2), item(9, 3)];
    for (const i of [a, b, c, d]) q.push(i!);
    expect(q.peekSoonest()).toBe(b);
    expect(q.peekLatest()).toBe(d);
    q.remove(d!);
    expect(q.peekLatest()).toBe(c); // of two equally urgent, the later arrival is the least urgent
    q.remove(b!);
    expect(q.peekSoonest()).toBe(a);
    expect(q.size).toBe(2);
  });

  it('a removed item is never returned again, and pushing it twice counts it once', () => {
    const q = new UrgencyQueue<Ranked>();
    const a = item(1, 0);
    q.push(a);
    q.push(a);
    expect(q.size).toBe(1);
    q.remove(a);
    q.remove(a);
    expect(q.size).toBe(0);
    expect(q.peekSoonest()).toBeUndefined();
    expect(q.peekLatest()).toBeUndefined();
  });

  it('agrees with a sorted list under any sequence of pushes, removals and re-pushes', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(3), fc.nat(20)), { maxLength: 300 }), (steps) => {
        const q = new UrgencyQueue<Ranked>();
        const all: Ranked[] = [];
        const model = new Set<Ranked>();
        for (const [kind, n] of steps) {
          if (kind <= 1 || all.length === 0) {
            const i = item(n, all.length);
            all.push(i);
            q.push(i);
            model.add(i);
          } else if (kind === 2) {
            const i = all[n % all.length]!;
            q.remove(i);
            model.delete(i);
          } else {
            const i = all[n % all.length]!;
            q.push(i);
            model.add(i);
          }
          const sorted = [...model].sort((x, y) => x.urgentAt - y.urgentAt || x.seq - y.seq);
          expect(q.size).toBe(model.size);
          expect(q.peekSoonest()).toBe(sorted[0]);
          expect(q.peekLatest()).toBe(sorted.at(-1));
        }
      }),
    );
  });

  it('keeps memory proportional to what is queued through churn', () => {
    const q = new UrgencyQueue<Ranked>();
    for (let i = 0; i < 100_000; i++) {
      const a = item(i, i);
      q.push(a);
      q.remove(a);
    }
    const heaps = q as unknown as { soonest: unknown[]; latest: unknown[] };
    expect(heaps.soonest.length + heaps.latest.length).toBeLessThan(2100);
    expect(q.drain()).toEqual([]);
  });
});
