/**
 * How long a renew may wait in the group committer for company: a held lease's renewals rarely coincide (each
 * Mastra thread renews on its own timer), so sent at once each costs a Raft proposal of its own. Waiting a
 * moment lets the renewals of many keys share one transaction.
 *
 * The wait never puts the key at risk. The key's current lease cannot end before `protectedUntil` — the
 * `sentAt + ttlMs` of the last acquire or renew of this provider that wrote it (tenure/tenure-table.ts) — and the
 * renew leaves no later than `protectedUntil - marginMs`, the margin being one full attempt timeout, so even its
 * first attempt is answered (or has timed out and been retried) before that lease could end. Without a known
 * `protectedUntil` (the key was written elsewhere) the renew does not wait. Only renews wait: an acquire or a
 * transfer answers a caller who is waiting to act, a release frees a key someone may be waiting for.
 *
 * Never-negative, whole-number-free arithmetic on LeaseClock milliseconds; the committer turns the result into a
 * send-by time on its own monotonic clock (LeaseClock never runs slower than that one, so the wait measured there
 * is at most the wait computed here).
 */
interface RenewDelayInput {
  /** LeaseClock now. */
  readonly now: number;
  /** The renew's TTL: the wait is at most a twentieth of it, so a short TTL pays a proportionally short wait. */
  readonly ttlMs: number;
  /** The provider's coalescing window (`renewCoalesceMs`); 0 turns waiting off. */
  readonly windowMs: number;
  /** Earliest moment the key's current lease may end, when this provider wrote it; undefined when unknown. */
  readonly protectedUntil: number | undefined;
  /** Time kept free before `protectedUntil`: one attempt timeout. */
  readonly marginMs: number;
}

/** A renew waits at most 1/20 of its TTL: at Mastra's cadence (every ttl/3) that is 15 % of the time between renewals. */
const MAX_TTL_SHARE = 20;

/** Milliseconds the renew may wait before it must be sent: min(window, ttl/20, protectedUntil − margin − now), ≥ 0. */
export function renewDelayMs(input: RenewDelayInput): number {
  const { now, ttlMs, windowMs, protectedUntil, marginMs } = input;
  if (!(windowMs > 0) || protectedUntil === undefined) return 0;
  const delay = Math.min(windowMs, ttlMs / MAX_TTL_SHARE, protectedUntil - marginMs - now);
  return delay > 0 ? delay : 0;
}
