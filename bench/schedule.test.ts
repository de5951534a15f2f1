import { describe, expect, it } from 'vitest';
import { roundOrder } from './schedule.js';

describe('round order', () => {
  const items = ['a', 'b', 'c', 'd'];

  it('keeps neighbours adjacent in every round, alternating which goes first', () => {
    for (let round = 0; round < 4; round++) {
      const order = roundOrder(items, round);
      const gap = Math.abs(order.indexOf('a') - order.indexOf('b'));
      expect(gap).toBe(1);
      expect(order.indexOf('a') < order.indexOf('b')).toBe(round % 2 === 0);
    }
  });

  it('gives every scenario the same mean position over two rounds', () => {
    const mean = (x: string) => (roundOrder(items, 0).indexOf(x) + roundOrder(items, 1).indexOf(x)) / 2;
    expect(new Set(items.map(mean))).toEqual(new Set([(items.length - 1) / 2]));
  });

  it('runs every scenario exactly once per round without changing the list', () => {
    const list = [...items];
    expect([...roundOrder(list, 1)].sort()).toEqual(items);
    expect(list).toEqual(items);
  });
});
