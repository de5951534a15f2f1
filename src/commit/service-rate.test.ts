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

describe('service rate across a silence (an election, an outage)', () => {
  it('a window in which nothing was answered is no measure: the rate before it stands', () => {
    const r = new ServiceRate(1000, 10_000);
    r.answered(0, 0, 250);
    for (let t = 10; t <= 1000; t += 10) r.answered(5, t, 250); // 500 per second
    expect(r.perMs(1000)).toBeCloseTo(0.5, 1);
    // Work waits, nothing is answered for 2.5 s.
    expect(r.perMs(3500)).toBeCloseTo(0.5, 1);
    // The backlog drains at the old pace once answers come again: the silence is left out of that window.
    for (let t = 3510; t <= 4500; t += 10) r.answered(5, t, 250);
    expect(r.perMs(4500)).toBeCloseTo(0.5, 1);
  });

  it('a silence inside a window is left out of it; gaps shorter than the silence bound count', () => {
    const r = new ServiceRate(1000, 10_000);
    r.answered(0, 0, 250);
    for (let t = 10; t <= 400; t += 10) r.answered(5, t, 250);
    for (let t = 1000; t <= 1600; t += 10) r.answered(5, t, 250); // 600 ms silent, then answers again
    // The first window: 200 operations in 400 ms of answering, 0.5 per ms — not 200 in the whole 1000 ms.
    expect(r.perMs(1600)).toBeCloseTo(0.5, 1);
    const slow = new ServiceRate(1000, 10_000);
    slow.answered(0, 0, 250);
    // Answers every 200 ms: no silence. The window holds those before 1000 ms (the one at 1000 opens the next).
    for (let t = 200; t <= 1000; t += 200) slow.answered(10, t, 250);
    expect(slow.perMs(1000)).toBeCloseTo(0.04, 3);
  });
});
