import { THREAD_TTL_MS, ownerToken, type Scenario } from './scenario.js';

/**
 * This provider's `acquireLease` on distinct, fresh keys shaped like Mastra's thread keys
 * (`resourceId + "\u0000" + threadId`). Every call must win: a fresh key that is not acquired is an error.
 */
export function providerAcquire(callers: number): Scenario {
  return {
    id: `provider-acquire-${callers}`,
    label: 'provider acquireLease',
    family: 'provider-acquire',
    callers,
    prepare: async ({ provider }, runId) => ({
      op: async (caller, seq) => {
        const res = await provider.acquireLease(`resource-${runId}\u0000thread-${seq}`, ownerToken(caller), THREAD_TTL_MS);
        return res.acquired;
      },
    }),
  };
}

/** The same through an earlier build of the provider (BENCH_BASELINE_DIST): the before of a before/after. */
export function baselineAcquire(callers: number): Scenario {
  return {
    id: `baseline-acquire-${callers}`,
    label: 'baseline build acquireLease',
    family: 'baseline-acquire',
    callers,
    prepare: async ({ baseline }, runId) => {
      if (baseline === undefined) throw new Error('baseline scenarios need BENCH_BASELINE_DIST');
      return {
        op: async (caller, seq) => (await baseline.acquireLease(`resource-${runId}\u0000thread-${seq}`, ownerToken(caller), THREAD_TTL_MS)).acquired,
      };
    },
  };
}
