import { chooseLease, shouldPrefetch, ttlSecondsFor, type PooledLease } from './lease-choice.js';

export interface GrantedLease {
  id: string;
  /** TTL the server actually chose (it raises requests below its minimum). */
  ttlSeconds: number;
}

/** Performs one LeaseGrant (with the caller's retry policy around it). */
/**
 * Performs one LeaseGrant, retries included. It takes no caller signal on purpose: a grant is shared
 * by every call waiting for it, so one caller giving up must not fail the others.
 */
export type GrantFn = (ttlSeconds: number) => Promise<GrantedLease>;

interface PendingGrant {
  /** Lower bound on the `notBefore` this grant will have when it lands. */
  readonly notBeforeAtLeast: number;
  readonly promise: Promise<PooledLease>;
}

/**
 * Shared etcd leases: keys whose deadlines fall in the same bucket ride on one lease, so the hot
 * path never waits for a LeaseGrant and the number of live etcd leases is bounded by buckets, not keys.
 *
 * Leases are never kept alive: each expires on its own once its last key's deadline has passed, so an
 * owner that stops renewing loses its key on time and the pool cannot leak server-side leases.
 */
export class LeasePool {
  private readonly leases = new Map<string, PooledLease>();
  private readonly pending = new Set<PendingGrant>();
  private closed = false;

  constructor(
    private readonly grant: GrantFn,
    private readonly bucketMs: number,
    private readonly onBackgroundError: (error: unknown) => void = () => {},
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A lease id that keeps a key written at `sentAt` alive for at least `ttlMs`. */
  async leaseFor(ttlMs: number, sentAt: number): Promise<string> {
    const need = sentAt + ttlMs;
    this.prune();
    const ready = chooseLease(this.leases.values(), need, this.bucketMs);
    if (ready) {
      const now = this.now();
      if (shouldPrefetch(ready, now, ttlMs, this.bucketMs) && !this.hasSuccessor(now + ttlMs + this.bucketMs / 2)) {
        // The successor picks up where `ready` stops fitting, so leases are spaced one bucket apart
        // (granting for `now + ttlMs` would space them half a bucket apart: twice the leases).
        this.startGrant(Math.max(now + ttlMs, ready.notBefore)).promise.catch(this.onBackgroundError);
      }
      return ready.id;
    }
    const inFlight = [...this.pending].find((p) => p.notBeforeAtLeast >= need && p.notBeforeAtLeast <= need + this.bucketMs);
    const lease = await (inFlight ?? this.startGrant(need)).promise;
    return lease.id;
  }

  /** Forget a lease etcd no longer knows (revoked, or lost with the cluster's data). */
  invalidate(id: string): void {
    this.leases.delete(id);
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
    for (const p of this.pending) if (p.notBeforeAtLeast >= notBefore) return true;
    for (const l of this.leases.values()) if (l.notBefore >= notBefore) return true;
    return false;
  }

  private startGrant(need: number): PendingGrant {
    const sentAt = this.now();
    const ttlSeconds = ttlSecondsFor(need, sentAt, this.bucketMs);
    const promise = this.grant(ttlSeconds).then((granted) => {
      const lease: PooledLease = { id: granted.id, notBefore: sentAt + granted.ttlSeconds * 1000 };
      if (!this.closed) this.leases.set(lease.id, lease);
      return lease;
    });
    const entry: PendingGrant = { notBeforeAtLeast: sentAt + ttlSeconds * 1000, promise };
    this.pending.add(entry);
    const done = () => this.pending.delete(entry);
    promise.then(done, done);
    return entry;
  }

  /** Leases whose `notBefore` has passed can serve no new key (every need lies in the future). */
  private prune(): void {
    const now = this.now();
    for (const [id, lease] of this.leases) if (lease.notBefore <= now) this.leases.delete(id);
  }
}
