/**
 * Remaining-TTL distribution for `stats`. etcd reports a lease's remaining TTL in whole seconds, so a histogram
 * keyed by second is exact and small (one entry per distinct second, not per lease): buckets and percentiles are
 * read from it, whatever the number of leases.
 */
export interface TtlBucket {
  /** Inclusive lower bound, ms. */
  fromMs: number;
  /** Exclusive upper bound, ms; null for the last, open bucket. */
  toMs: number | null;
  leases: number;
}

/** Bucket edges, in seconds: about to expire, one Mastra TTL or so, minutes, an hour and more. */
const EDGES_S = [0, 5, 15, 30, 60, 300, 900, 3600];

export class TtlHistogram {
  private readonly bySecond = new Map<number, number>();
  private total = 0;

  add(ttlMs: number): void {
    const seconds = Math.floor(ttlMs / 1000);
    this.bySecond.set(seconds, (this.bySecond.get(seconds) ?? 0) + 1);
    this.total++;
  }

  get count(): number {
    return this.total;
  }

  buckets(): TtlBucket[] {
    return EDGES_S.map((from, i) => {
      const to = EDGES_S[i + 1];
      let leases = 0;
      for (const [seconds, n] of this.bySecond) if (seconds >= from && (to === undefined || seconds < to)) leases += n;
      return { fromMs: from * 1000, toMs: to === undefined ? null : to * 1000, leases };
    });
  }

  /** The TTL (ms) below which a fraction `q` of the leases lie (nearest rank); null when there are none. */
  quantileMs(q: number): number | null {
    if (this.total === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (const seconds of [...this.bySecond.keys()].sort((a, b) => a - b)) {
      seen += this.bySecond.get(seconds)!;
      if (seen >= rank) return seconds * 1000;
    }
    return null;
  }
}

/** `5s–15s`, `1h+`: a bucket as the text output labels it. */
export function bucketLabel(bucket: TtlBucket): string {
  const s = (ms: number): string => (ms >= 3_600_000 ? `${ms / 3_600_000}h` : ms >= 60_000 ? `${ms / 60_000}min` : `${ms / 1000}s`);
  return bucket.toMs === null ? `${s(bucket.fromMs)}+` : `${s(bucket.fromMs)}–${s(bucket.toMs)}`;
}
