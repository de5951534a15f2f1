import { LatencyHistogram } from '../histogram.js';

/** What the renewals of a hold did since the last `take()`. */
export interface RenewCounts {
  renews: number;
  failures: number;
  latency: LatencyHistogram;
  firstFailure?: string;
}

/** Counts renewals as they are answered; `take()` hands over the counts and starts afresh. */
export class RenewTally {
  private counts: RenewCounts = { renews: 0, failures: 0, latency: new LatencyHistogram() };

  answered(latencyMs: number, ok: boolean, failure?: unknown): void {
    this.counts.renews++;
    this.counts.latency.record(latencyMs);
    if (ok) return;
    this.counts.failures++;
    this.counts.firstFailure ??= failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure ?? 'renew answered false');
  }

  take(): RenewCounts {
    const counts = this.counts;
    this.counts = { renews: 0, failures: 0, latency: new LatencyHistogram() };
    return counts;
  }
}

/**
 * Mastra's cadence: every held key renews every `periodMs` on a timer of its own, never waiting for its previous
 * renewal. A key's timer starts when the key is taken (`start(i)`), at a random phase within one period — threads
 * start at unrelated moments — so a key taken early in a slow setup is renewed in time, as Mastra's would be.
 * `renew(i)` resolves to whether key i is still held; each answer goes to `tally`. `stop()` clears the timers and
 * waits for renewals still in flight.
 */
export class RenewTimers {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly periodMs: number,
    private readonly renew: (i: number) => Promise<boolean>,
    private readonly tally: RenewTally,
  ) {}

  start(i: number): void {
    if (this.stopped) return;
    this.timers[i] = setTimeout(() => {
      this.fire(i);
      this.timers[i] = setInterval(() => this.fire(i), this.periodMs);
    }, Math.random() * this.periodMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) if (t !== undefined) clearTimeout(t); // clears intervals too
    await Promise.all(this.inFlight);
  }

  private fire(i: number): void {
    if (this.stopped) return;
    const sentAt = performance.now();
    const p = this.renew(i).then(
      (ok) => this.tally.answered(performance.now() - sentAt, ok),
      (error: unknown) => this.tally.answered(performance.now() - sentAt, false, error),
    );
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }
}
