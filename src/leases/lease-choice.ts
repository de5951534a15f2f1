import type { ClockMoment } from '../clock/lease-clock.js';

/**
 * Pure arithmetic of the shared lease pool. Times are milliseconds on the provider's LeaseClock, on both of its
 * scales (clock/lease-clock.ts): `notBefore` on the one that never runs slower than real time (suspends counted),
 * `steadyNotBefore` on the one that never runs faster (wall-clock steps not counted).
 *
 * A lease granted with TTL `T` s by a request *sent* at `g` cannot expire before `g + T·1000`: the leader starts
 * its clock when it applies the grant, which is after we sent it, and etcd only ever extends leases (a new leader
 * resets each lease to its full TTL). That lower bound, floored to whole milliseconds, is the lease's `notBefore`;
 * it is computed from the TTL *requested*, so a server that raises a short TTL to its minimum changes nothing here
 * (the key merely lives longer) and such leases keep being shared. A key written at send time `s` with `ttlMs`
 * must not vanish before `s + ttlMs` (its `need`), so it may go on any lease that reaches the need; choosing the
 * tightest one keeps the extra life (slack) under `bucketMs + 1000` ms (one bucket plus whole-second rounding).
 *
 * Why two scales. Whether a lease granted at `g` reaches a need made at `s` depends on the real time between the two:
 * - `g` before `s`: the lease aged by that time, so it must be counted in full — a suspend included. The lease-clock
 *   scale counts at least it: `g + T ≥ s + ttl` there proves it.
 * - `g` after `s` (a grant started for a call that waited, or retried): the call's time ran down by that much, and
 *   counting more than really passed — a forward wall-clock step — would size the lease too short. The steady scale
 *   counts at most it: `g + T ≥ s + ttl` there proves it.
 * Either comparison implies the other in the order where it is not the proof (the lease-clock scale never counts
 * less time than the steady one), so requiring both is exactly right whichever came first, and needs no knowledge
 * of the order. The same holds for "this lease ends no earlier than that one" (`reaches` of two leases): a refresh
 * moves a key only onto a lease that reaches its current one on both scales (calls/refresh-held.ts).
 */

/** How far a lease must last, or lasts at least, on both scales. */
export interface Reach {
  /** LeaseClock ms (never slower than real time). */
  readonly notBefore: number;
  /** Steady ms (never faster than real time). */
  readonly steadyNotBefore: number;
}

export interface PooledLease extends Reach {
  readonly id: string;
}

/** Does `lease` last at least until `need` — proven on both scales? */
export function reaches(lease: Reach, need: Reach): boolean {
  return lease.notBefore >= need.notBefore && lease.steadyNotBefore >= need.steadyNotBefore;
}

/** What lasts until both `a` and `b`: the later of each scale. */
export function later(a: Reach, b: Reach): Reach {
  return { notBefore: Math.max(a.notBefore, b.notBefore), steadyNotBefore: Math.max(a.steadyNotBefore, b.steadyNotBefore) };
}

/** `ms` after a moment, on both scales: the need of a call sent then for `ms`, or the reach of a lease granted then. */
export function reachAfter(moment: ClockMoment, ms: number): Reach {
  return { notBefore: moment.at + ms, steadyNotBefore: moment.steady + ms };
}

/** Extra life beyond `need` a chosen lease may add: one bucket plus rounding up to whole seconds. */
export function maxSlackMs(bucketMs: number): number {
  return bucketMs + 1000;
}

/**
 * The tightest lease that keeps the key alive until `need`, within the slack bound; undefined if none. Tightness is
 * judged on the steady scale: after a forward step the lease-clock scale puts every lease granted since far ahead of
 * the needs made before, though they are no longer.
 */
export function chooseLease<L extends PooledLease>(leases: Iterable<L>, need: Reach, bucketMs: number): L | undefined {
  const slack = maxSlackMs(bucketMs);
  let best: L | undefined;
  for (const lease of leases) {
    if (!reaches(lease, need)) continue;
    // Within the slack on one scale is enough: a need joined from two (a call's and a lease's) can be met tightly
    // on one only, and a grant for it is sized by that one.
    if (lease.steadyNotBefore > need.steadyNotBefore + slack && lease.notBefore > need.notBefore + slack) continue;
    if (!best || lease.steadyNotBefore < best.steadyNotBefore) best = lease;
  }
  return best;
}

/**
 * TTL in whole seconds to request for a new lease that must outlive `need` when sent at `now`, on both scales.
 * One bucket of headroom lets later calls with the same ttl reuse it for about `bucketMs`.
 */
export function ttlSecondsFor(need: Reach, now: ClockMoment, bucketMs: number): number {
  const remaining = Math.max(need.notBefore - now.at, need.steadyNotBefore - now.steady);
  return Math.max(1, Math.ceil((remaining + bucketMs) / 1000));
}

/**
 * Should a fresh lease be granted in the background? Yes when the lease just chosen will stop
 * fitting this ttl (its `notBefore` drops below `now + ttlMs`) within half a bucket, so the next
 * call finds a successor ready instead of waiting for a LeaseGrant round trip.
 */
export function shouldPrefetch(chosen: PooledLease, now: ClockMoment, ttlMs: number, bucketMs: number): boolean {
  return Math.min(chosen.notBefore - now.at, chosen.steadyNotBefore - now.steady) - ttlMs < bucketMs / 2;
}
