import type { RecordableProvider } from '../../safety-checker/recorder.js';
import type { ClockSource } from '../../src/clock/clock-source.js';
import type { EtcdLeaseProviderOptions } from '../../src/config/options.js';

/** What the chaos workload and the safety tests drive: the real provider, or a deliberately broken double. */
export interface ProviderUnderTest extends RecordableProvider {
  close(): Promise<void>;
}

/**
 * Builds one. `clock` is the raw clock the provider's LeaseClock must read (a SuspendableClock where a test
 * emulates a suspend), so a broken double can read it differently.
 */
export type ProviderFactory = (options: EtcdLeaseProviderOptions, clock: ClockSource) => ProviderUnderTest;
