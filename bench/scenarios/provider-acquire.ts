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
