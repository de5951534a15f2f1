import { describe, expect, it } from 'vitest';
import type { StoredLease } from '../lease-row.js';
import { LeaseStats } from './lease-stats.js';

const lease = (owner: string, leaseId: string, ttlRemainingMs: number | null, metadata?: string): StoredLease => ({
  key: `k-${Math.random()}`,
  owner,
  fencingToken: '1',
  ttlRemainingMs,
  leaseId,
  createRevision: '1',
  ...(metadata === undefined ? {} : { metadata }),
});

describe('LeaseStats', () => {
  it('counts leases, metadata, owners (top N, most first, ties by owner) and distinct etcd leases', () => {
    const stats = new LeaseStats();
    for (const l of [lease('b', '7', 10_000), lease('a', '7', 10_000, 'run-1'), lease('c', '8', 40_000), lease('c', '8', 40_000), lease('a', '9', 0), lease('z', '0', null)]) stats.add(l);
    expect(stats.summary(2, '42')).toMatchObject({
      revision: '42',
      leases: 6,
      withMetadata: 1,
      owners: 4,
      topOwners: [
        { owner: 'a', leases: 2 },
        { owner: 'c', leases: 2 },
      ],
      etcdLeases: 3,
      ttl: { noLease: 1, minMs: 0, medianMs: 10_000, maxMs: 40_000 },
    });
  });

  it('the TTL buckets add up to the leases that have an etcd lease', () => {
    const stats = new LeaseStats();
    for (let i = 0; i < 100; i++) stats.add(lease(`o${i % 7}`, String(i % 5), i * 1000));
    stats.add(lease('x', '0', null));
    const summary = stats.summary(10, '1');
    expect(summary.ttl.buckets.reduce((n, b) => n + b.leases, 0) + summary.ttl.noLease).toBe(summary.leases);
  });
});
