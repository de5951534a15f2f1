import type { LeaseProvider } from '@mastra/core/events';

import { hasLeaseRecords, type LeaseRecordProvider } from './lease-record-provider.js';
import type { LeaseOperation, WithEtcdLeasesOptions } from './options.js';

type Guard = Pick<WithEtcdLeasesOptions, 'onAcquireError' | 'onLeaseError'>;

/**
 * Applies the Mastra-facing error policy to a lease provider. It lives here, not in the
 * provider, because the policy is about how `@mastra/core` reads a result: the provider's
 * contract is to throw when it cannot tell, and only the Mastra adapter knows that a thrown
 * acquire means "go ahead" on the idle-wake path.
 *
 * Returns `provider` itself when no policy is configured, so `getLeaseProvider()` hands
 * Mastra the very object the caller gave.
 */
export function guardLeaseProvider(provider: LeaseProvider, guard: Guard): LeaseProvider {
  const { onAcquireError = 'throw', onLeaseError } = guard;
  if (onAcquireError === 'throw' && onLeaseError === undefined) return provider;

  const report = (error: unknown, operation: LeaseOperation, key: string): void => {
    try {
      onLeaseError?.(error, operation, key);
    } catch {
      // An observer must not change the outcome of the lease operation it observes.
    }
  };

  async function observed<T>(operation: LeaseOperation, key: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      report(error, operation, key);
      throw error;
    }
  }

  // Metadata and any further arguments go through untouched; getLeaseRecord only if the provider has it.
  const inner = provider as LeaseRecordProvider;
  const guarded: LeaseRecordProvider = {
    async acquireLease(key, owner, ttlMs, ...rest: [string?]) {
      try {
        return await inner.acquireLease(key, owner, ttlMs, ...rest);
      } catch (error) {
        report(error, 'acquireLease', key);
        if (onAcquireError === 'throw') throw error;
        // No `owner`: we do not know who holds it, and naming a stale guess would make
        // Mastra forward the message to a run that may not exist.
        return { acquired: false };
      }
    },
    getLeaseOwner: (key) => observed('getLeaseOwner', key, () => inner.getLeaseOwner(key)),
    releaseLease: (key, owner, ...rest: [string?]) => observed('releaseLease', key, () => inner.releaseLease(key, owner, ...rest)),
    renewLease: (key, owner, ttlMs, ...rest: [string?]) => observed('renewLease', key, () => inner.renewLease(key, owner, ttlMs, ...rest)),
    transferLease: (key, fromOwner, toOwner, ttlMs, ...rest: [string?, string?]) =>
      observed('transferLease', key, () => inner.transferLease(key, fromOwner, toOwner, ttlMs, ...rest)),
    getLeaseRecord: (key) => observed('getLeaseRecord', key, () => inner.getLeaseRecord(key)),
  };
  if (!hasLeaseRecords(provider)) delete (guarded as Partial<LeaseRecordProvider>).getLeaseRecord;
  return guarded;
}
