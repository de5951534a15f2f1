import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';

/** etcd's own upper bound on a lease TTL (`MaxLeaseTTL`, 9 000 000 000 s). */
export const MAX_TTL_MS = 9_000_000_000 * 1000;

export function checkTtl(ttlMs: unknown, parameter = 'ttlMs'): asserts ttlMs is number {
  if (typeof ttlMs !== 'number') {
    throw new LeaseArgumentTypeError(parameter, `must be a number of milliseconds, got ${typeof ttlMs}`);
  }
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new LeaseArgumentRangeError(parameter, `must be a finite number of milliseconds above 0, got ${ttlMs}`);
  }
  if (ttlMs > MAX_TTL_MS) {
    throw new LeaseArgumentRangeError(parameter, `must be at most ${MAX_TTL_MS} (etcd's largest lease TTL), got ${ttlMs}`);
  }
}
