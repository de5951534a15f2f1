import { describe, expect, it } from 'vitest';
import { InFlightLimit } from './in-flight-limit.js';

const settings = { min: 4, max: 32, tolerance: 2, floorWindowMs: 10_000 };

/** Feeds `n` answers of `rttMs`, one every `rttMs / limit` (a full pipeline), starting at `t`. Returns the end time. */
function run(limit: InFlightLimit, n: number, rttMs: (inFlight: number) => number, t = 0, saturated = true): number {
  for (let i = 0; i < n; i++) {
    const rtt = rttMs(limit.limit);
    t += rtt / limit.limit;
    limit.observe(rtt, t, saturated);
  }
  return t;
}

describe('in-flight limit', () => {
  it('grows toward its maximum while more in flight does not make commits slower (far followers)', () => {
    const limit = new InFlightLimit(settings);
    expect(limit.limit).toBe(4);
    run(limit, 2000, () => 200);
    expect(limit.limit).toBe(32);
    expect(limit.commitMs).toBeCloseTo(200);
  });

  it('stays near where commits start to queue inside etcd (each commit waits for the others: rtt ∝ in flight)', () => {
    const limit = new InFlightLimit(settings);
    run(limit, 5000, (n) => 5 * Math.max(1, n / 6)); // etcd serves 6 at a time; more only queue
    expect(limit.limit).toBeGreaterThanOrEqual(6);
    expect(limit.limit).toBeLessThanOrEqual(14);
  });

  it('never goes below its minimum, and halves (down to it) when etcd says it has too many requests', () => {
    const limit = new InFlightLimit(settings);
    run(limit, 3000, () => 200);
    limit.congested();
    expect(limit.limit).toBe(16);
    for (let i = 0; i < 10; i++) limit.congested();
    expect(limit.limit).toBe(4);
    run(limit, 100, (n) => 1 + 100 * n);
    expect(limit.limit).toBe(4);
  });

  it('does not move without a backlog: an idle provider has no evidence either way', () => {
    const limit = new InFlightLimit(settings);
    run(limit, 1000, () => 200, 0, false);
    expect(limit.limit).toBe(4);
  });

  it('learns a lasting change of the commit time within two windows', () => {
    const limit = new InFlightLimit(settings);
    const t = run(limit, 2000, () => 2); // a fast cluster…
    run(limit, 4000, () => 50, t); // …whose commits become slow for good (a slower disk): grows again once it is the floor
    expect(limit.limit).toBe(32);
  });
});
