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
 * Mastra's cadence: every held key renews every `periodMs` on a timer of its own, started at a random phase (threads
 * start at unrelated moments), and never waits for its previous renewal. `renew(i)` resolves to whether key i is
 * still held; each answer goes to `tally`. `stop()` clears the timers and waits for renewals still in flight.
 */
export function startRenewTimers(keys: number, periodMs: number, renew: (i: number) => Promise<boolean>, tally: RenewTally): { stop(): Promise<void> } {
  const timers: NodeJS.Timeout[] = [];
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const fire = (i: number) => {
    if (stopped) return;
    const sentAt = performance.now();
    const p = renew(i).then(
      (ok) => tally.answered(performance.now() - sentAt, ok),
      (error: unknown) => tally.answered(performance.now() - sentAt, false, error),
    );
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  for (let i = 0; i < keys; i++) {
    timers.push(
      setTimeout(() => {
        fire(i);
        timers[i] = setInterval(() => fire(i), periodMs);
      }, Math.random() * periodMs),
    );
  }
  return {
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t); // clears intervals too
      await Promise.all(inFlight);
    },
  };
}
