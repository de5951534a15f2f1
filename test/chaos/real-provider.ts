import { LeaseClock } from '../../src/clock/lease-clock.js';
import { createLeaseProvider } from '../../src/provider.js';
import type { ProviderFactory } from './provider-under-test.js';

/** The provider as shipped, on the given raw clock: what every broken double is measured against. */
export const realProvider: ProviderFactory = (options, clock) => createLeaseProvider(options, { clock: new LeaseClock(clock) });
