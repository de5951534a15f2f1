/**
 * Pure arithmetic of the shared lease pool. Times are milliseconds on the provider's LeaseClock (which never
 * runs slower than real time, suspends included).
 *
 * A lease granted with TTL `T` s by a request *sent* at `g` cannot expire before `g + T·1000`: the leader starts
 * its clock when it applies the grant, which is after we sent it, and etcd only ever extends leases (a new leader
 * resets each lease to its full TTL). That lower bound, floored to whole milliseconds, is the lease's `notBefore`;
 * it is computed from the TTL *requested*, so a server that raises a short TTL to its minimum changes nothing here
 * (the key merely lives longer) and such leases keep being shared. A key written at send time `s` with `ttlMs`
 * must not vanish before `s + ttlMs` (its `need`), so it may go on any lease with `notBefore ≥ need`; choosing the
 * tightest one keeps the extra life (slack) under `bucketMs + 1000` ms (one bucket plus whole-second rounding).
 */
export interface PooledLease {
  readonly id: string;
  /** Earliest moment etcd may expire this lease (whole ms, LeaseClock). */
  readonly notBefore: number;
}

/** Extra life beyond `need` a chosen lease may add: one bucket plus rounding up to whole seconds. */
export function maxSlackMs(bucketMs: number): number {
  return bucketMs + 1000;
}

/** The tightest lease that keeps the key alive until `need`, within the slack bound; undefined if none. */
export function chooseLease<L extends PooledLease>(leases: Iterable<L>, need: number, bucketMs: number): L | undefined {
  const limit = need + maxSlackMs(bucketMs);
  let best: L | undefined;
  for (const lease of leases) {
    if (lease.notBefore < need || lease.notBefore > limit) continue;
    if (!best || lease.notBefore < best.notBefore) best = lease;
  }
  return best;
}

/**
 * TTL in whole seconds to request for a new lease that must outlive `need` when sent at `now`.
 * One bucket of headroom lets later calls with the same ttl reuse it for about `bucketMs`.
 */
export function ttlSecondsFor(need: number, now: number, bucketMs: number): number {
  return Math.max(1, Math.ceil((need - now + bucketMs) / 1000));
}

/** notBefore of a lease requested with `ttlSeconds` by a grant sent at `sentAt`. */
export function notBeforeOf(sentAt: number, ttlSeconds: number): number {
  return Math.floor(sentAt + ttlSeconds * 1000);
}

/**
 * Should a fresh lease be granted in the background? Yes when the lease just chosen will stop
 * fitting this ttl (its `notBefore` drops below `now + ttlMs`) within half a bucket, so the next
 * call finds a successor ready instead of waiting for a LeaseGrant round trip.
 */
export function shouldPrefetch(chosen: PooledLease, now: number, ttlMs: number, bucketMs: number): boolean {
  return chosen.notBefore - (now + ttlMs) < bucketMs / 2;
}
