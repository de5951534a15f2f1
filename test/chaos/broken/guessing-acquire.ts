import { createLeaseProvider } from '../../../src/provider.js';
import { LeaseClock } from '../../../src/clock/lease-clock.js';
import type { ProviderFactory, ProviderUnderTest } from '../provider-under-test.js';

/** How long the guessing acquire waits for an answer before it assumes its write went through. */
const GUESS_AFTER_MS = 1000;

// Breaks "never guess": an acquire that gets no answer (its write may or may not have committed) reports the lease won.
export const guessingAcquire: ProviderFactory = (options, clock): ProviderUnderTest => {
  const inner = createLeaseProvider(options, { clock: new LeaseClock(clock) });
  return {
    acquireLease: async (key, owner, ttlMs) => {
      try {
        return await inner.acquireLease(key, owner, ttlMs, { deadlineMs: GUESS_AFTER_MS });
      } catch {
        return { acquired: true, owner };
      }
    },
    renewLease: (key, owner, ttlMs) => inner.renewLease(key, owner, ttlMs),
    releaseLease: (key, owner) => inner.releaseLease(key, owner),
    transferLease: (key, from, to, ttlMs) => inner.transferLease(key, from, to, ttlMs),
    getLease: (key, call) => inner.getLease(key, call),
    close: () => inner.close(),
  };
};
