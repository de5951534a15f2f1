import type { LeaseClock } from '../clock/lease-clock.js';
import { LeaseIdTakenError } from '../errors/lease-id-taken.js';
import { POLICY } from '../policy.js';
import { chooseLease, notBeforeOf, shouldPrefetch, ttlSecondsFor, type PooledLease } from './lease-choice.js';
import { ID_UNIT_MS, type LeaseIdSpace } from './lease-id.js';

/**
 * Performs one LeaseGrant of `ttlSeconds` under the chosen `id`, retries included, and resolves once etcd
 * granted it (or proved that the lease it already has under that id lasts until `notBefore`). Rejects with
 * `LeaseIdTakenError` when the id belongs to a lease it cannot vouch for. It takes no caller signal on purpose:
 * a grant is shared by every call waiting for it, so one caller giving up must not fail the others.
 */
export type GrantFn = (ttlSeconds: number, id: string, notBefore: number) => Promise<void>;

interface PendingGrant {
  readonly notBefore: number;
  readonly promise: Promise<PooledLease>;
}

/**
 * Shared etcd leases: keys whose deadlines fall in the same bucket ride on one lease, so the hot
 * path never waits for a LeaseGrant and the number of live etcd leases is bounded by buckets, not keys.
 *
 * Leases are never kept alive: each expires on its own once its last key's deadline has passed, so an
 * owner that stops renewing loses its key on time and the pool cannot leak server-side leases.
 * Every lease's id encodes its notBefore (see lease-id.ts), which is what lets a write refuse to move a
 * key to a lease that ends earlier.
 */
export class LeasePool {
  private readonly leases = new Map<string, PooledLease>();
  private readonly pending = new Set<PendingGrant>();
  /** Ids this pool has asked etcd for whose leases may still run: a new grant never reuses one of them. */
  private readonly requested = new Map<string, number>();
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
   * A lease that keeps a key written at `sentAt` (LeaseClock) alive for at least `ttlMs`: at once when a pooled one
   * fits (nearly always), else a promise of the grant it waits for. Not an async function: the hot path then
   * allocates no promise.
   */
  leaseFor(ttlMs: number, sentAt: number): PooledLease | Promise<PooledLease> {
    const need = sentAt + ttlMs;
    const now = this.clock.now();
    this.prune(now);
    const ready = chooseLease(this.leases.values(), need, this.bucketMs);
    if (ready) {
      if (shouldPrefetch(ready, now, ttlMs, this.bucketMs) && !this.hasSuccessor(now + ttlMs + this.bucketMs / 2)) {
        // The successor picks up where `ready` stops fitting, so leases are spaced one bucket apart
        // (granting for `now + ttlMs` would space them half a bucket apart: twice the leases).
        this.startGrant(Math.max(now + ttlMs, ready.notBefore)).promise.catch(this.onBackgroundError);
      }
      return ready;
    }
    const inFlight = [...this.pending].find((p) => p.notBefore >= need && p.notBefore <= need + this.bucketMs);
    if (inFlight === undefined) return this.startGrant(need).promise;
    // A grant whose id was taken settles on a lower one: it still covers the need it was started for, not
    // necessarily ours. Then look again (another grant, or a new one for this need).
    return inFlight.promise.then((lease) => (lease.notBefore >= need ? lease : this.leaseFor(ttlMs, sentAt)));
  }

  /** Forget a lease etcd no longer knows (revoked, or lost with the cluster's data). */
  invalidate(id: string): void {
    this.leases.delete(id);
  }

  /** A lease this pool handed out and still considers live. */
  get(id: string): PooledLease | undefined {
    return this.leases.get(id);
  }

  /** Number of leases this pool currently hands out (for metrics and tests). */
  get size(): number {
    this.prune();
    return this.leases.size;
  }

  close(): void {
    this.closed = true;
    this.leases.clear();
  }

  /** Is a lease (granted or on its way) already there that will still fit half a bucket from now? */
  private hasSuccessor(notBefore: number): boolean {
    for (const p of this.pending) if (p.notBefore >= notBefore) return true;
    for (const l of this.leases.values()) if (l.notBefore >= notBefore) return true;
    return false;
  }

  private startGrant(need: number): PendingGrant {
    const sentAt = this.clock.now();
    const ttlSeconds = ttlSecondsFor(need, sentAt, this.bucketMs);
    // What the first id tried claims (ids round down to whole units): waiters are matched against it.
    const notBefore = this.ids.floor(notBeforeOf(sentAt, ttlSeconds));
    const promise = this.grantWithFreeId(ttlSeconds, notBefore, need).then((lease) => {
      if (!this.closed) {
        this.leases.set(lease.id, lease);
        this.pruneAt = Math.min(this.pruneAt, lease.notBefore);
      }
      return lease;
    });
    const entry: PendingGrant = { notBefore, promise };
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
  private async grantWithFreeId(ttlSeconds: number, notBefore: number, need: number): Promise<PooledLease> {
    for (const [id, until] of this.requested) if (until < this.clock.now()) this.requested.delete(id);
    let taken: LeaseIdTakenError | undefined;
    let tries = 0;
    for (let candidate = this.ids.floor(notBefore); candidate >= need && tries < POLICY.grantIdTries; candidate -= ID_UNIT_MS) {
      const id = this.ids.idFor(candidate);
      if (this.requested.has(id)) continue;
      this.requested.set(id, candidate);
      tries++;
      try {
        await this.grant(ttlSeconds, id, candidate);
        return { id, notBefore: candidate };
      } catch (error) {
        if (!(error instanceof LeaseIdTakenError)) throw error;
        taken = error;
      }
    }
    throw taken ?? new LeaseIdTakenError(this.ids.idFor(notBefore), `every id between it and the need ${need} was asked for already`);
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
