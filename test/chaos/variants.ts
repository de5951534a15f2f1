import { blindPutAcquire } from './broken/blind-put-acquire.js';
import { blindRetryAcquire } from './broken/blind-retry-acquire.js';
import { guessingAcquire } from './broken/guessing-acquire.js';
import { localCounterTokens } from './broken/local-counter-tokens.js';
import { realProvider } from './real-provider.js';
import { renewWithoutOwnerCompare } from './broken/renew-without-owner-compare.js';
import { shortLease } from './broken/short-lease.js';
import { stepsCountAsElapsed } from './broken/steps-count-as-elapsed.js';
import type { ProviderFactory } from './provider-under-test.js';

/** Every provider the chaos workload can run, by the name a worker process is given. */
export const VARIANTS = {
  real: realProvider,
  'renew-without-owner-compare': renewWithoutOwnerCompare,
  'blind-put-acquire': blindPutAcquire,
  'short-lease': shortLease,
  'guessing-acquire': guessingAcquire,
  'blind-retry-acquire': blindRetryAcquire,
  'local-counter-tokens': localCounterTokens,
  'steps-count-as-elapsed': stepsCountAsElapsed,
} as const satisfies Record<string, ProviderFactory>;

export type VariantName = keyof typeof VARIANTS;
