import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POLICY } from '../policy.js';
import { endsNotBefore, isPlausible, reliedOnUntil, type TimeToLiveAnswer } from './lease-ttl.js';

const PLACEHOLDER_S = 9_223_372_036; // what etcd before 3.4.32 / 3.5.14 answers on a just-elected leader

// Both scales agree here (no step, no suspend): the bounds are read on the lease-clock one.
const answer = (ttlSeconds: number, grantedSeconds: number, askedAt = 1_000, answeredAt = 1_040): TimeToLiveAnswer => ({
  ttlSeconds,
  grantedSeconds,
  asked: { at: askedAt, steady: askedAt },
  answered: { at: answeredAt, steady: answeredAt },
});
const onClock = (reach: { notBefore: number } | undefined) => reach?.notBefore;

describe('what a LeaseTimeToLive answer proves', () => {
  it("treats a just-elected leader's placeholder, and anything past the granted TTL plus the margin, as unknown", () => {
    expect(isPlausible(answer(PLACEHOLDER_S, 15))).toBe(false);
    expect(isPlausible(answer(15 + POLICY.ttlAnswerMarginS + 1, 15))).toBe(false);
    expect(isPlausible(answer(15 + 1, 15))).toBe(true); // a new leader's election-timeout extension
    expect(onClock(endsNotBefore(answer(PLACEHOLDER_S, 15)))).toBeUndefined();
  });

  it('lower bound for keeping a key on it: whole seconds counted from when the question was sent', () => {
    expect(onClock(endsNotBefore(answer(7, 15)))).toBe(1_000 + 7_000);
    expect(onClock(endsNotBefore(answer(0, 15)))).toBe(1_000); // under a second left
    expect(onClock(endsNotBefore(answer(-1, 0)))).toBeUndefined(); // etcd does not know it
  });

  it('upper bound of what anyone relies on: one more second than the truncated answer, counted from its arrival', () => {
    expect(onClock(reliedOnUntil(answer(7, 15)))).toBe(1_040 + 8_000);
    // after a leader change the lease can have more than its granted TTL left; nobody relies on that part
    expect(onClock(reliedOnUntil(answer(15 + POLICY.ttlAnswerMarginS, 15)))).toBe(1_040 + (15 + POLICY.ttlAnswerMarginS) * 1000);
    expect(onClock(reliedOnUntil(answer(PLACEHOLDER_S, 15)))).toBeUndefined();
    expect(onClock(reliedOnUntil(answer(-1, 0)))).toBe(1_040);
  });

  it('for any lease life the answer is consistent with, the two bounds enclose it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }), // granted TTL, s
        fc.double({ min: 0, max: 1, noNaN: true }), // where in [askedAt, answeredAt] the leader computed it
        fc.integer({ min: 0, max: 5_000 }), // round trip, ms
        fc.double({ min: 0, max: 1, noNaN: true }), // fraction of the granted TTL left
        (granted, at, rtt, left) => {
          const askedAt = 50_000;
          const answeredAt = askedAt + rtt;
          const computedAt = askedAt + at * rtt;
          // whole milliseconds, as a lease's life is: a fractional one can round up to the next second when divided
          const remainingMs = Math.floor(left * granted * 1000);
          const end = computedAt + remainingMs;
          const a = answer(Math.trunc(remainingMs / 1000), granted, askedAt, answeredAt);
          expect(onClock(endsNotBefore(a))!).toBeLessThanOrEqual(end);
          expect(onClock(reliedOnUntil(a))!).toBeGreaterThan(end);
        },
      ),
    );
  });
});
