/** Bounds and tuning of the in-flight limit (POLICY.commit). */
interface InFlightSettings {
  /** Never fewer transactions in flight than this (also where it starts). */
  readonly min: number;
  readonly max: number;
  /** The limit grows while a commit takes at most this many times the lowest commit time seen recently. */
  readonly tolerance: number;
  /** The lowest commit time is the least of the current and the previous window of this length. */
  readonly floorWindowMs: number;
}

/**
 * How many group-commit transactions may be in flight at once, sized by the commit latency etcd shows (TCP Vegas's
 * idea): while there is more work than the limit lets out and commits still take about as long as the fastest ones
 * seen lately, one more transaction in flight buys throughput — far followers, slow disks — so the limit grows by
 * about one per round trip; once commits take longer than `tolerance` times that, the extra transactions only queue
 * inside etcd, where nothing can order or shed them, so it shrinks the same way. An explicit "too many requests" from
 * etcd halves it.
 *
 * It never goes below `min`, the fixed limit earlier versions used, so it can only add to what they committed. Only
 * batches sent while work was left waiting (`saturated`) move it: an idle provider has no evidence either way. Pure
 * arithmetic on the times it is given.
 */
export class InFlightLimit {
  private current: number;
  private floorNow = Number.POSITIVE_INFINITY;
  private floorBefore = Number.POSITIVE_INFINITY;
  private windowEndsAt = Number.NEGATIVE_INFINITY;
  private smoothed: number | undefined;

  constructor(private readonly settings: InFlightSettings) {
    this.current = settings.min;
  }

  /** Transactions that may be in flight now. */
  get limit(): number {
    return Math.floor(this.current);
  }

  /** Smoothed commit time (ms), undefined before the first answer. */
  get commitMs(): number | undefined {
    return this.smoothed;
  }

  /** A transaction answered after `rttMs`, at `now`; `saturated`: work was left waiting when it was sent. */
  observe(rttMs: number, now: number, saturated: boolean): void {
    if (now >= this.windowEndsAt) {
      this.floorBefore = this.floorNow;
      this.floorNow = Number.POSITIVE_INFINITY;
      this.windowEndsAt = now + this.settings.floorWindowMs;
    }
    this.floorNow = Math.min(this.floorNow, rttMs);
    this.smoothed = this.smoothed === undefined ? rttMs : this.smoothed + (rttMs - this.smoothed) / 8;
    if (!saturated) return;
    const floor = Math.min(this.floorNow, this.floorBefore);
    // One step per answer of 1/limit: about one transaction more (or fewer) per round trip of the whole window.
    const step = 1 / this.current;
    if (rttMs <= floor * this.settings.tolerance) this.current = Math.min(this.settings.max, this.current + step);
    else this.current = Math.max(this.settings.min, this.current - step);
  }

  /** etcd said it has too many proposals pending. */
  congested(): void {
    this.current = Math.max(this.settings.min, this.current / 2);
  }
}
