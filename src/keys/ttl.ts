import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';

/** etcd's own upper bound on a lease TTL (`MaxLeaseTTL`, 9 000 000 000 s). */
export const MAX_TTL_MS = 9_000_000_000 * 1000;

/**
 * `leaseBucketMs`: the pool gives a key an etcd lease of up to ceil((ttlMs + bucket) / 1 s) whole seconds
 * (src/leases/lease-choice.ts). A ttl whose lease would pass etcd's limit is refused here, before any
 * request, rather than by etcd after one.
 */
export function checkTtl(ttlMs: unknown, leaseBucketMs = 0, parameter = 'ttlMs'): asserts ttlMs is number {
  if (typeof ttlMs !== 'number') {
    throw new LeaseArgumentTypeError(parameter, `must be a number of milliseconds, got ${typeof ttlMs}`);
  }
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new LeaseArgumentRangeError(parameter, `must be a finite number of milliseconds above 0, got ${ttlMs}`);
  }
  if (Math.ceil((ttlMs + leaseBucketMs) / 1000) * 1000 > MAX_TTL_MS) {
    throw new LeaseArgumentRangeError(
      parameter,
      `too large: with the ${leaseBucketMs} ms lease bucket, rounded up to whole seconds, the etcd lease would exceed etcd's largest TTL (9 000 000 000 s); got ${ttlMs}`,
    );
  }
}
