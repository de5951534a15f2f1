import type { ProviderFactory, ProviderUnderTest } from '../provider-under-test.js';
import { realProvider } from '../real-provider.js';

// Breaks "never early": asks etcd for half the ttl it reports to its caller, so a holder that stops renewing loses the key before its ttl.
export const shortLease: ProviderFactory = (options, clock): ProviderUnderTest => {
  const inner = realProvider(options, clock);
  const half = (ttlMs: number) => Math.floor(ttlMs / 2);
  return {
    acquireLease: (key, owner, ttlMs) => inner.acquireLease(key, owner, half(ttlMs)),
    renewLease: (key, owner, ttlMs) => inner.renewLease(key, owner, half(ttlMs)),
    releaseLease: (key, owner) => inner.releaseLease(key, owner),
    transferLease: (key, from, to, ttlMs) => inner.transferLease(key, from, to, half(ttlMs)),
    getLease: (key, call) => inner.getLease!(key, call),
    close: () => inner.close(),
  };
};
