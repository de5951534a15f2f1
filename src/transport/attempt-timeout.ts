import { POLICY } from '../policy.js';

/**
 * The timeout of one attempt, adapted to how fast this client's requests are answered (Jacobson's estimator,
 * as TCP uses for its retransmission timeout): smoothed latency + 4 × smoothed deviation, never below `floorMs`.
 * Only answered attempts are sampled; a call whose attempts keep timing out grows its own next timeout instead
 * (`forAttempt`), and its eventual answer feeds the estimate.
 *
 * A timeout is no sample, so an estimator fed only by answers never learns that commits became slower than the
 * current timeout: every attempt times out (after committing), is sent again, and each timeout opens a
 * healthy member's circuit. So, as TCP does after a retransmission timeout (Karn), a timed-out attempt
 * that had the full current timeout doubles it for every call (`timedOut`), up to POLICY.sharedTimeoutGrowthMax×, until the next
 * answer brings a real sample and the estimate takes over again.
 */
export class AttemptTimeout {
  private smoothed: number | undefined;
  private deviation = 0;
  private backoff = 1;

  constructor(private readonly floorMs: number) {}

  /** An attempt was answered (successfully or with a definite error) after `latencyMs`. */
  observe(latencyMs: number): void {
    this.backoff = 1;
    if (this.smoothed === undefined) {
      this.smoothed = latencyMs;
      this.deviation = latencyMs / 2;
      return;
    }
    this.deviation += POLICY.deviationSmoothing * (Math.abs(latencyMs - this.smoothed) - this.deviation);
    this.smoothed += POLICY.latencySmoothing * (latencyMs - this.smoothed);
  }

  /**
   * An attempt given `timeoutMs` ran out of time. Only one that had the whole current timeout doubles it: the
   * many attempts of one batch, sent with the timeout before, time out together and count once.
   */
  timedOut(timeoutMs: number): void {
    if (timeoutMs >= this.baseMs) this.backoff = Math.min(this.backoff * POLICY.timeoutGrowth, POLICY.sharedTimeoutGrowthMax);
  }

  /** The timeout for every first attempt now. */
  get baseMs(): number {
    return this.estimateMs * this.backoff;
  }

  /** What the answers so far say an attempt needs, never below the floor. */
  private get estimateMs(): number {
    return this.smoothed === undefined ? this.floorMs : Math.max(this.floorMs, this.smoothed + POLICY.deviationWeight * this.deviation);
  }

  /** Timeout of an attempt after `timedOut` earlier attempts of the same call ran out of time, capped at `remainingMs`. */
  forAttempt(timedOut: number, remainingMs: number): number {
    // The call's own timeouts and everyone's (`backoff`) are the same evidence, often the same event: the larger
    // of the two growths, not their product.
    const grown = this.estimateMs * Math.max(this.backoff, POLICY.timeoutGrowth ** Math.min(timedOut, 16));
    return Math.max(1, Math.min(grown, remainingMs));
  }
}
