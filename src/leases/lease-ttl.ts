/**
 * What one LeaseTimeToLive answer proves about a lease. Pure arithmetic; times are LeaseClock moments on both of its
 * scales (clock/lease-clock.ts), and what an answer proves is a `Reach` on both (leases/lease-choice.ts).
 *
 * etcd answers `TTL` = the leader's remaining time for the lease, truncated to whole seconds (so the lease lasts
 * at least `TTL` and less than `TTL + 1` seconds from the moment the leader computed it), -1 when it does not know
 * the lease, and `grantedTTL` = the TTL it was granted (or last kept alive) with. The moment the leader computed
 * the answer lies between when the request was sent (`askedAt`) and when the answer arrived (`answeredAt`).
 *
 * One answer is not to be trusted: etcd before 3.4.32 / 3.5.14 answers 9 223 372 036 s for every lease on a member
 * that has just become leader, until it applies its first entry (it keeps leases "forever" while it follows).
 * Legitimately `TTL` exceeds `grantedTTL` only after a leader change: the new leader gives every lease its full TTL
 * plus its election timeout (1 s by default), and spreads expiries when over 1 000 leases would end within the same
 * second. An answer beyond `grantedTTL + POLICY.ttlAnswerMarginS` is therefore treated as unknown.
 */

import type { ClockMoment } from '../clock/lease-clock.js';
import { POLICY } from '../policy.js';
import { reachAfter, type Reach } from './lease-choice.js';

export interface TimeToLiveAnswer {
  /** Remaining whole seconds, as etcd answered; -1 when the lease is unknown. */
  readonly ttlSeconds: number;
  /** The TTL the lease was granted with, in seconds (0 when it is unknown). */
  readonly grantedSeconds: number;
  /** When the request was sent, and when its answer arrived. */
  readonly asked: ClockMoment;
  readonly answered: ClockMoment;
}

/** Is the remaining TTL one etcd can really have given this lease (not the just-elected leader's placeholder)? */
export function isPlausible(answer: Pick<TimeToLiveAnswer, 'ttlSeconds' | 'grantedSeconds'>): boolean {
  return answer.ttlSeconds <= answer.grantedSeconds + POLICY.ttlAnswerMarginS;
}

/**
 * The earliest the lease can end, as far as this answer proves; undefined when it proves nothing (the lease is gone
 * or the answer is implausible). Safe for "keep a key on it until then": the truncated TTL is a lower bound of what
 * the leader had left, counted from the earliest moment it can have computed it (`asked`), and etcd never
 * shortens a lease (a keep-alive or a leader change only lengthens it).
 */
export function endsNotBefore(answer: TimeToLiveAnswer): Reach | undefined {
  if (answer.ttlSeconds < 0 || !isPlausible(answer)) return undefined;
  return reachAfter(answer.asked, answer.ttlSeconds * 1000);
}

/**
 * The latest moment any writer can rely on this lease lasting (what it may have promised its caller), or undefined
 * for an implausible answer: the other rounding. Counted from `answered`, the latest moment the leader can have
 * computed the answer, it is the smaller of
 * - `TTL + 1` s: the lease ends before then (truncation), and a correct writer never relies on more than it lasts;
 * - `grantedTTL + POLICY.ttlAnswerMarginS`: a writer's reliance starts from a grant or keep-alive it sent, or an answer it
 *   read and trusted within this margin, before our answer arrived (the rest of a lengthened lease is nobody's).
 * Safe for "move the key off it onto a lease of ours that lasts at least until then": no writer's promise is
 * shortened. A lease etcd does not know carries no promise.
 */
export function reliedOnUntil(answer: TimeToLiveAnswer): Reach | undefined {
  if (answer.ttlSeconds < 0) return reachAfter(answer.answered, 0);
  if (!isPlausible(answer)) return undefined;
  return reachAfter(answer.answered, Math.min(answer.grantedSeconds + POLICY.ttlAnswerMarginS, answer.ttlSeconds + 1) * 1000);
}
