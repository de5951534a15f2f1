import type { ProviderFactory, ProviderUnderTest } from '../provider-under-test.js';
import { realProvider } from '../real-provider.js';

// Breaks fencing: each process numbers its own grants of a key instead of using etcd's revision, so the next holder in another process can get a smaller token.
export const localCounterTokens: ProviderFactory = (options, clock): ProviderUnderTest => {
  const inner = realProvider(options, clock);
  const counters = new Map<string, number>();
  const next = (key: string) => {
    const value = (counters.get(key) ?? 0) + 1;
    counters.set(key, value);
    return String(value);
  };
  return {
    acquireLease: async (key, owner, ttlMs) => {
      const result = await inner.acquireLease(key, owner, ttlMs);
      return result.acquired ? { ...result, fencingToken: next(key) } : result;
    },
    renewLease: (key, owner, ttlMs) => inner.renewLease(key, owner, ttlMs),
    releaseLease: (key, owner) => inner.releaseLease(key, owner),
    transferLease: (key, from, to, ttlMs) => inner.transferLease(key, from, to, ttlMs),
    // A renew's token is read back the same way: the counter's value, not the key's revision.
    getLease: async (key, call) => {
      const info = await inner.getLease!(key, call);
      return info === undefined ? undefined : { ...info, fencingToken: String(counters.get(key) ?? 0) };
    },
    close: () => inner.close(),
  };
};
