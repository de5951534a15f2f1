import { THREAD_TTL_MS, ownerToken, type Scenario } from './scenario.js';

/**
 * A Mastra-like mix per caller, in a loop: acquire a fresh thread key, renew it twice (Mastra renews
 * every TTL/3), release it — 25 % acquire, 50 % renew, 25 % release. Each caller works on its own key,
 * so every renew must return true and every acquire must win; anything else is counted as an error.
 */
export function providerMixed(callers: number): Scenario {
  return {
    id: `provider-mixed-${callers}`,
    label: 'provider mixed acquire/renew/release',
    family: 'provider-mixed',
    callers,
    prepare: async ({ provider }, runId) => {
      const state = Array.from({ length: callers }, () => ({ key: '', step: 0 }));
      return {
        op: async (caller, seq) => {
          const s = state[caller]!;
          const owner = ownerToken(caller);
          switch (s.step++ % 4) {
            case 0:
              s.key = `resource-${runId}\u0000thread-${seq}`;
              return (await provider.acquireLease(s.key, owner, THREAD_TTL_MS)).acquired;
            case 1:
            case 2:
              return provider.renewLease(s.key, owner, THREAD_TTL_MS);
            default:
              await provider.releaseLease(s.key, owner);
              return true;
          }
        },
      };
    },
  };
}
