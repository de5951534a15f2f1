/**
 * Timing of a held lease. All times are LeaseClock milliseconds (they count a suspend; performance.now() does not).
 *
 * A holder may believe it owns the key from its acquire until (send time of its last successful
 * acquire/renew) + ttlMs: etcd never expires the key earlier (see the provider's TTL guarantee).
 * The handle's signal fires a little before that instant, because timers fire late, never early.
 */

import { POLICY } from '../policy.js';

/** Safety margin before the belief window's end (POLICY.expiryMargin: 10 % of the TTL, at most 250 ms). */
export function expiryMarginMs(ttlMs: number): number {
  return Math.min(POLICY.expiryMargin.maxMs, ttlMs / POLICY.expiryMargin.ttlDivisor);
}

/** When the handle stops believing it holds the lease, given the send time of its last successful write. */
export function believedUntil(sentAt: number, ttlMs: number): number {
  return sentAt + ttlMs - expiryMarginMs(ttlMs);
}

/**
 * Where a belief window ending at `until` stands at `now`, given how much the lease clock jumped (wall clock
 * ahead of the monotonic one) since the write that opened it was sent:
 * - `open`: not over;
 * - `over`: over even without the jumps — no renew succeeded for the whole window;
 * - `jumped-past`: over only on account of the jumps, which may be a suspend (real time passed) or a forward
 *   wall-clock step (none did). Only etcd can tell: the handle asks it with a renew.
 */
export function windowState(now: number, until: number, jumpedMs: number): 'open' | 'over' | 'jumped-past' {
  if (now < until) return 'open';
  return now - jumpedMs < until ? 'jumped-past' : 'over';
}

/** Renew about every ttl/3 after the last successful write, as Mastra's runtime does: two renews may fail before the lease is lost. */
export function nextRenewAt(sentAt: number, ttlMs: number): number {
  return sentAt + ttlMs / 3;
}

/**
 * After `failures` consecutive failed renews (1 = the first): retry soon, exponentially from
 * POLICY.errorBackoff.firstMs, but never later than halfway to the end of the belief window, so several retries fit
 * before it closes.
 */
export function retryRenewAt(now: number, until: number, failures: number): number {
  const backoff = POLICY.errorBackoff.firstMs * 2 ** Math.max(0, Math.min(failures - 1, 10));
  return now + Math.max(0, Math.min(backoff, (until - now) / 2));
}

/**
 * Deadline of one renew call: no later than the end of the belief window (a later answer is useless),
 * nor the provider's deadline. Rounded down, so the call can only end early, never past the window.
 */
export function renewDeadlineMs(now: number, until: number, providerDeadlineMs: number): number {
  return Math.max(1, Math.floor(Math.min(providerDeadlineMs, until - now)));
}

/** The revision right after `fencingToken`: a handle's watch starts there, so it misses no change after its own acquire. */
export function revisionAfter(fencingToken: string): string {
  return (BigInt(fencingToken) + 1n).toString();
}
