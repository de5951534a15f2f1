import { describe, expect, it } from 'vitest';
import { believedUntil, expiryMarginMs, nextRenewAt, renewDeadlineMs, retryRenewAt, revisionAfter, windowState } from './renew-schedule.js';

describe('renew schedule', () => {
  it('a window that ended only on account of clock jumps is for etcd to settle; one over without them is over', () => {
    expect(windowState(9_999, 10_000, 0)).toBe('open');
    expect(windowState(10_000, 10_000, 0)).toBe('over');
    expect(windowState(70_000, 10_000, 60_500)).toBe('jumped-past'); // without the 60.5 s jumped, 9.5 s of 10 had passed
    expect(windowState(70_000, 10_000, 59_000)).toBe('over'); // even without the jump it would be over now
  });

  it('belief ends ttl after the last successful send, minus at most 250 ms (10 % of short TTLs)', () => {
    expect(believedUntil(1000, 2000)).toBe(1000 + 2000 - 200);
    expect(believedUntil(1000, 15_000)).toBe(1000 + 15_000 - 250);
    expect(expiryMarginMs(100)).toBe(10);
  });

  it('renews a third of the TTL after the last success', () => {
    expect(nextRenewAt(1000, 15_000)).toBe(6000);
  });

  it('failed renews retry with backoff, always before the belief window closes', () => {
    expect(retryRenewAt(0, 10_000, 1)).toBe(100);
    expect(retryRenewAt(0, 10_000, 3)).toBe(400);
    expect(retryRenewAt(0, 1000, 20)).toBe(500);
    expect(retryRenewAt(900, 1000, 20)).toBe(950);
    expect(retryRenewAt(1200, 1000, 1)).toBe(1200);
  });

  it('a renew call never waits past the end of the belief window nor the provider deadline', () => {
    expect(renewDeadlineMs(0, 10_000, 5000)).toBe(5000);
    expect(renewDeadlineMs(0, 800, 5000)).toBe(800);
    expect(renewDeadlineMs(900, 800, 5000)).toBe(1);
    expect(renewDeadlineMs(0.25, 1133.9, 5000)).toBe(1133); // whole ms: AbortSignal.timeout rejects fractions
  });

  it('the watch starts right after the acquire revision, past 2^53', () => {
    expect(revisionAfter('41')).toBe('42');
    expect(revisionAfter('9007199254740993')).toBe('9007199254740994');
  });
});
