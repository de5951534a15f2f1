import type { ClockMoment } from '../../../src/clock/lease-clock.js';
import { LeaseClock } from '../../../src/clock/lease-clock.js';
import { createLeaseProvider } from '../../../src/provider.js';
import type { ProviderFactory } from '../provider-under-test.js';

// Breaks rule 4 the other way: one scale for everything, so a forward wall-clock step during a call counts as time
// the call's need ran down — a lease granted after the step is sized too short, and its later id outranks the
// lease the key was on.
class OneScaleClock extends LeaseClock {
  override moment(): ClockMoment {
    const at = this.now();
    return { at, steady: at };
  }
}

export const stepsCountAsElapsed: ProviderFactory = (options, clock) => createLeaseProvider(options, { clock: new OneScaleClock(clock) });
