import type { ClockMoment, LeaseClock } from '../clock/lease-clock.js';
import { LeaseIdTakenError } from '../errors/lease-id-taken.js';
import { POLICY } from '../policy.js';
import { chooseLease, later, reachAfter, reaches, shouldPrefetch, ttlSecondsFor, type PooledLease, type Reach } from './lease-choice.js';
import { ID_UNIT_MS, type LeaseIdSpace } from './lease-id.js';

/**
 * Performs one LeaseGrant of `ttlSeconds` under the chosen `id`, retries included, and resolves once etcd
 * granted it (or proved that the lease it already has under that id lasts as long as `claims` says). Rejects with
 * `LeaseIdTakenError` when the id belongs to a lease it cannot vouch for. It takes no caller signal on purpose:
 * a grant is shared by every call waiting for it, so one caller giving up must not fail the others.
 */
export type GrantFn = (ttlSeconds: number, id: string, claims: Reach) => Promise<void>;

interface PendingGrant {
  /** What the lease will reach (what its first id tried claims): waiters are matched against it. */
  readonly reach: Reach;
  readonly promise: Promise<PooledLease>;
}

/**
 * Shared etcd leases: keys whose deadlines fall in the same bucket ride on one lease, so the hot
 * path never waits for a LeaseGrant and the number of live etcd leases is bounded by buckets, not keys.
 *
 * Leases are never kept alive: each expires on its own once its last key's deadline has passed, so an
 * owner that stops renewing loses its key on time and the pool cannot leak server-side leases.
 * Every lease's id encodes its notBefore (see lease-id.ts), so ids never repeat; what a lease reaches on both of the
 * clock's scales is kept beside it (`record`) while a key can be on it, which is what lets a refresh refuse to move a
 * key to a lease that ends earlier (calls/refresh-choice.ts).
 */
export class LeasePool {
  private readonly leases = new Map<string, PooledLease>();
  private readonly pending = new Set<PendingGrant>();
  /** Ids this pool has asked etcd for whose leases may still run: a new grant never reuses one of them. */
  private readonly requested = new Map<string, number>();
  /**
   * Every lease granted, with the LeaseClock time after which no key can be on it any more (a new leader may extend a
   * lease by its full TTL once): what a refresh needs to know of the lease a key is on. A forward step forgets records
   * early, which only sends a refresh the slow way (the lease's TTL is read, as for a lease of another provider).
   */
  private readonly records = new Map<string, { lease: PooledLease; until: number }>();
  private closed = false;
  /** Earliest notBefore among `leases`: prune has nothing to do before then (it runs on every lookup). */
  private pruneAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly grant: GrantFn,
    private readonly bucketMs: number,
    private readonly clock: LeaseClock,
    private readonly ids: LeaseIdSpace,
    private readonly onBackgroundError: (error: unknown) => void = () => {},
  ) {}

  /**
   * A lease that keeps a key written by a call sent at `sent` alive for at least `ttlMs`: at once when a pooled one
   * fits (nearly always), else a promise of the grant it waits for. Not an async function: the hot path then
   * allocates no promise.
   */
  leaseFor(ttlMs: number, sent: ClockMoment): PooledLease | Promise<PooledLease> {
    const need = reachAfter(sent, ttlMs);
    const now = this.clock.moment();
    this.prune(now.at);
    const ready = chooseLease(this.leases.values(), need, this.bucketMs);
    if (ready) {
      if (shouldPrefetch(ready, now, ttlMs, this.bucketMs) && !this.hasSuccessor(reachAfter(now, ttlMs + this.bucketMs / 2))) {
        // The successor picks up where `ready` stops fitting, so leases are spaced one bucket apart
        // (granting for `now + ttlMs` would space them half a bucket apart: twice the leases).
        this.startGrant(later(reachAfter(now, ttlMs), ready)).promise.catch((error: unknown) => {
          if (!this.closed) this.onBackgroundError(error); // cancelled by close(): nobody waits for it any more
        });
      }
      return ready;
    }
    return this.awaitGrant(need);
  }

  /**
   * A lease that reaches `need` on both scales (a call's need joined with a lease its key must not be moved below):
   * a pooled one, else the one granted for it. The lease is returned as it is, not looked up again: a need that is
   * not one call's can be one no pooled lease fits tightly.
   */
  leaseReaching(need: Reach): PooledLease | Promise<PooledLease> {
    this.prune();
    return chooseLease(this.leases.values(), need, this.bucketMs) ?? this.awaitGrant(need);
  }

  /** The lease this pool granted under `id`, while a key can still be on it; undefined for any other id. */
  record(id: string): PooledLease | undefined {
    return this.records.get(id)?.lease;
  }

  private awaitGrant(need: Reach): Promise<PooledLease> {
    const inFlight = [...this.pending].find((p) => reaches(p.reach, need) && p.reach.steadyNotBefore <= need.steadyNotBefore + this.bucketMs);
    if (inFlight === undefined) return this.startGrant(need).promise;
    // A grant whose id was taken settles on a lower one: it still covers the need it was started for, not
    // necessarily ours. Then look again (another grant, or a new one for this need).
    return inFlight.promise.then((lease) => (reaches(lease, need) ? lease : this.leaseReaching(need)));
  }

  /** Forget a lease etcd no longer knows (revoked, or lost with the cluster's data). */
  invalidate(id: string): void {
    this.leases.delete(id);
    this.records.delete(id);
  }

  /** Number of leases this pool currently hands out (for metrics and tests). */
  get size(): number {
    this.prune();
    return this.leases.size;
  }

  close(): void {
    this.closed = true;
    this.leases.clear();
    this.records.clear();
  }

  /** Is a lease (granted or on its way) already there that will still fit half a bucket from now? */
  private hasSuccessor(reach: Reach): boolean {
    for (const p of this.pending) if (reaches(p.reach, reach)) return true;
    for (const l of this.leases.values()) if (reaches(l, reach)) return true;
    return false;
  }

  private startGrant(need: Reach): PendingGrant {
    const sent = this.clock.moment();
    const ttlSeconds = ttlSecondsFor(need, sent, this.bucketMs);
    const lasts = reachAfter(sent, ttlSeconds * 1000);
    // What the first id tried claims (ids round down to whole units): waiters are matched against it.
    const claims = { notBefore: this.ids.floor(lasts.notBefore), steadyNotBefore: Math.floor(lasts.steadyNotBefore) };
    const promise = this.grantWithFreeId(ttlSeconds, claims, need).then((lease) => {
      if (!this.closed) {
        this.leases.set(lease.id, lease);
        this.records.set(lease.id, { lease, until: lease.notBefore + ttlSeconds * 1000 });
        this.pruneAt = Math.min(this.pruneAt, lease.notBefore);
      }
      return lease;
    });
    const entry: PendingGrant = { reach: claims, promise };
    this.pending.add(entry);
    const done = () => this.pending.delete(entry);
    promise.then(done, done);
    return entry;
  }

  /**
   * A lower id claims an earlier expiry than the lease has, which is always safe; so when the chosen id is
   * taken — by one of this pool's own grants of the same unit, or as etcd reports (grant.ts) — the next one down is
   * tried, never below `need` (the lease must still serve the call that started the grant). Out of ids, the grant
   * rejects with the retryable `LeaseIdTakenError`: the calls waiting for it try again with a new grant.
   */
  private async grantWithFreeId(ttlSeconds: number, claims: Reach, need: Reach): Promise<PooledLease> {
    const now = this.clock.now();
    for (const [id, until] of this.requested) if (until < now) this.requested.delete(id);
    for (const [id, record] of this.records) if (record.until < now) this.records.delete(id);
    let taken: LeaseIdTakenError | undefined;
    let tries = 0;
    for (let candidate = claims.notBefore; candidate >= need.notBefore && tries < POLICY.grantIdTries; candidate -= ID_UNIT_MS) {
      const id = this.ids.idFor(candidate);
      if (this.requested.has(id)) continue;
      this.requested.set(id, candidate);
      tries++;
      // The id only orders and names the lease; the steady scale's claim does not depend on it.
      const lease = { id, notBefore: candidate, steadyNotBefore: claims.steadyNotBefore };
      try {
        await this.grant(ttlSeconds, id, lease);
        return lease;
      } catch (error) {
        if (!(error instanceof LeaseIdTakenError)) throw error;
        taken = error;
      }
    }
    throw taken ?? new LeaseIdTakenError(this.ids.idFor(claims.notBefore), `every id between it and the need ${need.notBefore} was asked for already`);
  }

  /** Leases whose `notBefore` has passed can serve no new key (every need lies in the future). */
  private prune(now: number = this.clock.now()): void {
    if (now < this.pruneAt) return;
    let next = Number.POSITIVE_INFINITY;
    for (const [id, lease] of this.leases) {
      if (lease.notBefore <= now) this.leases.delete(id);
      else next = Math.min(next, lease.notBefore);
    }
    this.pruneAt = next;
  }
}
