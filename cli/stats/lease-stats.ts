import type { StoredLease } from '../lease-row.js';
import { TtlHistogram, type TtlBucket } from './ttl-buckets.js';

/** What `stats --json` prints; the field set is part of the CLI's contract. */
export interface LeaseStatsSummary {
  /** The revision every counted lease was read at. */
  revision: string;
  leases: number;
  /** Leases taken with run metadata. */
  withMetadata: number;
  /** Distinct owners. */
  owners: number;
  /** The owners holding the most leases, most first (ties by owner). */
  topOwners: Array<{ owner: string; leases: number }>;
  /** Distinct etcd leases the keys are attached to (pooled: far fewer than keys). */
  etcdLeases: number;
  ttl: {
    /** Keys attached to no etcd lease (not written by EtcdLeaseProvider): they never expire. */
    noLease: number;
    minMs: number | null;
    medianMs: number | null;
    maxMs: number | null;
    buckets: TtlBucket[];
  };
}

/**
 * Counts a listing as it streams by. Memory grows with distinct owners and distinct etcd leases — both far fewer
 * than keys in a Mastra deployment (owners are workers, leases are pooled) — never with keys.
 */
export class LeaseStats {
  private leases = 0;
  private withMetadata = 0;
  private readonly perOwner = new Map<string, number>();
  private readonly etcdLeases = new Set<string>();
  private readonly ttl = new TtlHistogram();
  private noLease = 0;

  add(lease: StoredLease): void {
    this.leases++;
    if (lease.metadata !== undefined) this.withMetadata++;
    this.perOwner.set(lease.owner, (this.perOwner.get(lease.owner) ?? 0) + 1);
    if (lease.leaseId === '0' || lease.ttlRemainingMs === null) this.noLease++;
    else {
      this.etcdLeases.add(lease.leaseId);
      this.ttl.add(lease.ttlRemainingMs);
    }
  }

  /** The summary of what was added, read at `revision`, naming the `top` owners. */
  summary(top: number, revision: string): LeaseStatsSummary {
    const topOwners = [...this.perOwner]
      .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, top)
      .map(([owner, leases]) => ({ owner, leases }));
    return {
      revision,
      leases: this.leases,
      withMetadata: this.withMetadata,
      owners: this.perOwner.size,
      topOwners,
      etcdLeases: this.etcdLeases.size,
      ttl: { noLease: this.noLease, minMs: this.ttl.quantileMs(0), medianMs: this.ttl.quantileMs(0.5), maxMs: this.ttl.quantileMs(1), buckets: this.ttl.buckets() },
    };
  }
}
