import type { LeaseProvider } from '@mastra/core/events';

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

  return {
    async acquireLease(key, owner, ttlMs) {
      try {
        return await provider.acquireLease(key, owner, ttlMs);
      } catch (error) {
        report(error, 'acquireLease', key);
        if (onAcquireError === 'throw') throw error;
        // No `owner`: we do not know who holds it, and naming a stale guess would make
        // Mastra forward the message to a run that may not exist.
        return { acquired: false };
      }
    },
    getLeaseOwner: (key) => observed('getLeaseOwner', key, () => provider.getLeaseOwner(key)),
    releaseLease: (key, owner) => observed('releaseLease', key, () => provider.releaseLease(key, owner)),
    renewLease: (key, owner, ttlMs) => observed('renewLease', key, () => provider.renewLease(key, owner, ttlMs)),
    transferLease: (key, fromOwner, toOwner, ttlMs) =>
      observed('transferLease', key, () => provider.transferLease(key, fromOwner, toOwner, ttlMs)),
  };
}
