/**
 * Latency histogram with log-spaced buckets, each 1 % wider than the one before, from 1 µs to ~17 min.
 *
 * Why not keep every sample: a full run records a few million latencies, and holding them would
 * grow this process's heap by tens of MB — inside the very RSS figure the benchmark reports for the
 * provider. A histogram is a fixed 8 KB per scenario run, and merging rounds is adding counts.
 * The price is resolution: a percentile is reported as its bucket's upper bound, at most 1 % above
 * the true sample (never below), the same way on every side of a comparison.
 */
const MIN_MS = 0.001;
const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);
const BUCKETS = Math.ceil(Math.log(1e6 / MIN_MS) / LOG_GROWTH) + 1;

export class LatencyHistogram {
  private readonly counts = new Uint32Array(BUCKETS);
  private n = 0;
  private total = 0;
  private largest = 0;

  record(ms: number): void {
    const index = ms <= MIN_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / MIN_MS) / LOG_GROWTH - 1e-9));
    this.counts[index]!++;
    this.n++;
    this.total += ms;
    if (ms > this.largest) this.largest = ms;
  }

  /** Adds another histogram's samples to this one. */
  add(other: LatencyHistogram): this {
    for (let i = 0; i < BUCKETS; i++) this.counts[i]! += other.counts[i]!;
    this.n += other.n;
    this.total += other.total;
    this.largest = Math.max(this.largest, other.largest);
    return this;
  }

  get count(): number {
    return this.n;
  }

  get mean(): number {
    return this.n ? this.total / this.n : Number.NaN;
  }

  get max(): number {
    return this.n ? this.largest : Number.NaN;
  }

  /**
   * Nearest-rank percentile: the bucket holding the smallest sample with at least `p` % of samples at
   * or below it, reported as that bucket's upper bound (capped at the largest sample seen, so p100 is
   * exact). NaN when empty.
   */
  percentile(p: number): number {
    if (!(p >= 0 && p <= 100)) throw new RangeError(`p must be within [0, 100], got ${p}`);
    if (this.n === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.n));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      // The last bucket also holds everything beyond its bound: report the largest sample from it.
      if (seen >= rank) return i === BUCKETS - 1 ? this.largest : Math.min(MIN_MS * GROWTH ** i, this.largest);
    }
    return this.largest;
  }
}
