import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';

/**
 * The longest lease the provider grants: ten years. etcd itself allows 9 000 000 000 s, but the provider's lease
 * ids carry each lease's expiry in 37 bits of 16 ms units counted from 2024 (leases/lease-id.ts), and ten years
 * keeps every lease inside that space for decades; no lease is meant to outlive its holder's process by years.
 */
export const MAX_TTL_MS = 10 * 365 * 24 * 3600 * 1000;

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
      `too large: with the ${leaseBucketMs} ms lease bucket, rounded up to whole seconds, the lease would exceed the longest the provider grants (10 years, ${MAX_TTL_MS} ms); got ${ttlMs}`,
    );
  }
}
