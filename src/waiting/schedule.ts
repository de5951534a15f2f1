/**
 * Timing of the waiting loop. The watch is what wakes a waiter; these intervals only bound how long a
 * waiter can sleep when the watch says nothing (a watch stream stalled on a partitioned member, a
 * missed event after the server compacted history), and how fast it retries while etcd is failing.
 * Their bounds: POLICY.waiting and POLICY.errorBackoff.
 */

import { POLICY } from '../policy.js';

/**
 * Safety-net re-check delay: half the requested TTL, clamped to [1 s, 5 s], with ±20 % jitter so
 * waiters that lost together do not all re-check together. `random` is in [0, 1).
 */
export function recheckDelayMs(ttlMs: number, random: number = Math.random()): number {
  const base = Math.min(POLICY.waiting.recheckMaxMs, Math.max(POLICY.waiting.recheckMinMs, ttlMs / 2));
  return Math.round(base * (0.8 + 0.4 * random));
}

/**
 * Delay before retrying after `failures` consecutive failed attempts (1 = the first failure):
 * exponential from 100 ms, capped at 2 s and at the re-check delay, with "full jitter" in its upper half.
 */
export function errorBackoffMs(failures: number, ttlMs: number, random: number = Math.random()): number {
  const exponential = POLICY.errorBackoff.firstMs * 2 ** Math.max(0, Math.min(failures - 1, 16));
  const cap = Math.min(POLICY.errorBackoff.maxMs, recheckDelayMs(ttlMs, 0.5), exponential);
  return Math.round(cap * (0.5 + 0.5 * random));
}
