import { POLICY } from './policy.js';

/**
 * The timeout of one attempt, adapted to how fast this client's requests are answered (Jacobson's estimator,
 * as TCP uses for its retransmission timeout): smoothed latency + 4 × smoothed deviation, never below `floorMs`.
 * Only answered attempts are sampled; a call whose attempts keep timing out grows its own next timeout instead
 * (`forAttempt`), and its eventual answer feeds the estimate.
 */
export class AttemptTimeout {
  private smoothed: number | undefined;
  private deviation = 0;

  constructor(private readonly floorMs: number) {}

  /** An attempt was answered (successfully or with a definite error) after `latencyMs`. */
  observe(latencyMs: number): void {
    if (this.smoothed === undefined) {
      this.smoothed = latencyMs;
      this.deviation = latencyMs / 2;
      return;
    }
    this.deviation += POLICY.deviationSmoothing * (Math.abs(latencyMs - this.smoothed) - this.deviation);
    this.smoothed += POLICY.latencySmoothing * (latencyMs - this.smoothed);
  }

  /** The timeout for every first attempt now. */
  get baseMs(): number {
    if (this.smoothed === undefined) return this.floorMs;
    return Math.max(this.floorMs, this.smoothed + POLICY.deviationWeight * this.deviation);
  }

  /** Timeout of an attempt after `timedOut` earlier attempts of the same call ran out of time, capped at `remainingMs`. */
  forAttempt(timedOut: number, remainingMs: number): number {
    const grown = this.baseMs * POLICY.timeoutGrowth ** Math.min(timedOut, 16);
    return Math.max(1, Math.min(grown, remainingMs));
  }
}
