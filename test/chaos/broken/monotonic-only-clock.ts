import type { ClockSource } from '../../../src/clock/clock-source.js';
import { LeaseClock } from '../../../src/clock/lease-clock.js';

// Breaks rule 4: lease life measured on the monotonic clock alone, which stops while the machine is suspended.
export class MonotonicOnlyClock extends LeaseClock {
  private readonly origin: number;

  constructor(private readonly raw: ClockSource) {
    super(raw);
    this.origin = raw.monotonic();
  }

  override now(): number {
    return this.raw.monotonic() - this.origin;
  }
}
