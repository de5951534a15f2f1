import { describe, expect, it } from 'vitest';
import { ServiceRate } from './service-rate.js';

describe('service rate', () => {
  it('measures what is answered while work waits throughout a window', () => {
    const r = new ServiceRate(1000, 10_000);
    r.answered(0, 0); // opens the first window
    for (let t = 10; t <= 1000; t += 10) r.answered(5, t); // 500 ops per second
    expect(r.perMs(1000)).toBeCloseTo(0.5, 1);
    for (let t = 1010; t <= 2000; t += 10) r.answered(2, t); // slower: 200 per second, averaged in
    expect(r.perMs(2000)).toBeCloseTo(0.35, 1);
  });

  it('ignores a window in which the queue ran dry (demand, not capacity), and forgets an old measure', () => {
    const r = new ServiceRate(1000, 10_000);
    r.answered(0, 0);
    r.answered(100, 500);
    r.drained(600);
    r.answered(100, 900);
    expect(r.perMs(1000)).toBeUndefined();
    for (let t = 1010; t <= 2000; t += 10) r.answered(5, t);
    expect(r.perMs(2000)).toBeCloseTo(0.5, 1);
    r.drained(2000); // then idle for long: the measure grows stale
    expect(r.perMs(20_000)).toBeUndefined();
  });
});
