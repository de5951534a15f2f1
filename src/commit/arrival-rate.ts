/**
 * How many operations reach the group committer per second, recently: an exponentially decayed count of arrivals
 * (each arrival adds 1, the total decays with time constant `tauMs`), which reads as arrivals per `tauMs`.
 *
 * The committer asks it whether a renew's wait can pay off: waiting costs the renew latency and buys nothing unless
 * other operations arrive meanwhile to share its transaction. A provider renewing a few keys (a test's workload, a
 * small deployment) sees too few arrivals, and its renews leave at once.
 */
export class ArrivalRate {
  private level = 0;
  private at = Number.NEGATIVE_INFINITY;

  constructor(private readonly tauMs = 1000) {}

  /** One arrival at `now` (ms, monotonic). */
  arrive(now: number): void {
    this.level = this.decayed(now) + 1;
    this.at = now;
  }

  /** Arrivals expected in the next `ms` at the recent rate. */
  expectedWithin(ms: number, now: number): number {
    return (this.decayed(now) * ms) / this.tauMs;
  }

  private decayed(now: number): number {
    return now <= this.at ? this.level : this.level * Math.exp(-(now - this.at) / this.tauMs);
  }
}
