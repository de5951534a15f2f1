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

  it('a window a silence reached into is no measure, nor the window after it; gaps shorter than the silence bound count', () => {
    const r = new ServiceRate(1000, 10_000);
    r.answered(0, 0, 250);
    for (let t = 10; t <= 1000; t += 10) r.answered(5, t, 250); // 500 per second
    for (let t = 1010; t <= 1400; t += 10) r.answered(1, t, 250);
    // 600 ms silent: the window it fell in, the one it ended in and the next are no measure.
    for (let t = 2000; t <= 4000; t += 10) r.answered(1, t, 250);
    expect(r.perMs(4000)).toBeCloseTo(0.5, 1);
    for (let t = 4010; t <= 5000; t += 10) r.answered(1, t, 250); // and then it is measured again, averaged in
    expect(r.perMs(5000)).toBeCloseTo(0.3, 1);
    const slow = new ServiceRate(1000, 10_000);
    slow.answered(0, 0, 250);
    // Answers every 200 ms: no silence. The window holds those before 1000 ms (the one at 1000 opens the next).
    for (let t = 200; t <= 1000; t += 200) slow.answered(10, t, 250);
    expect(slow.perMs(1000)).toBeCloseTo(0.04, 3);
  });

  // What CI saw: a hung leader's election, the committer asking for the rate on every arrival (so windows roll during
  // the silence), then the answers trickling in while the client finds the new leader. Counting that trickle set the
  // queue's bound to about a second of ordinary load, and the backlog of the election was shed.
  it('the first answers after an election (a trickle while the client finds the new leader) leave the rate as it was', () => {
    const r = new ServiceRate(1000, 10_000);
    r.answered(0, 0, 100);
    for (let t = 1; t <= 2000; t += 1) r.answered(5, t, 100); // 5 per ms, answers every ms
    expect(r.perMs(2000)).toBeCloseTo(5, 0);
    for (let t = 2010; t < 5000; t += 10) expect(r.perMs(t)).toBeCloseTo(5, 0); // silent for 3 s, asked all along
    for (let t = 5000; t < 5300; t += 1) r.answered(1, t, 100); // a trickle of 1 per ms
    for (let t = 5300; t <= 7000; t += 1) {
      r.answered(5, t, 100); // the backlog drains at the cluster's pace
      expect(r.perMs(t)).toBeCloseTo(5, 0);
    }
  });
});
