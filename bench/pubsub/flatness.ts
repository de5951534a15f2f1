/**
 * The soak's pass/fail rule. In-use db size is a sawtooth under periodic compaction: it climbs between compactions
 * and drops when one frees the history behind it, so two single samples can differ by a whole tooth. Peaks are
 * compared instead: the highest sample of the last window against the highest of the first window after warm-up,
 * each window two compaction periods long so it holds at least one full tooth. Growth that outlasts compaction (a
 * leak of keys, or no compaction at all) raises every later peak; a flat series keeps them level.
 *
 * The tolerance has to stay below what unbounded growth reaches in the run, or the soak could not fail: without
 * compaction the in-use size grows about linearly from the start, so in the default run (warm-up 120 s, windows
 * 60 s, 240 s in all) the last peak is about 240/180 = 1.33x the first. Hence the default of 1.2.
 */

export interface Point {
  /** Seconds since the load started. */
  t: number;
  bytes: number;
}

export interface Verdict {
  firstPeak: number;
  lastPeak: number;
  ratio: number;
  flat: boolean;
}

/** Peaks of `[warmUpS, warmUpS + windowS]` and `[endS - windowS, endS]`; throws if those windows do not fit. */
export function judgeFlatness(points: readonly Point[], warmUpS: number, windowS: number, endS: number, tolerance: number): Verdict {
  if (endS - warmUpS < 2 * windowS) {
    throw new Error(`the soak must run at least warm-up + 2 windows (${warmUpS + 2 * windowS} s), not ${endS} s`);
  }
  const peak = (from: number, to: number): number => {
    const inside = points.filter((p) => p.t >= from && p.t <= to).map((p) => p.bytes);
    if (inside.length === 0) throw new Error(`no sample between ${from} s and ${to} s`);
    return Math.max(...inside);
  };
  const firstPeak = peak(warmUpS, warmUpS + windowS);
  const lastPeak = peak(endS - windowS, endS);
  const ratio = lastPeak / firstPeak;
  return { firstPeak, lastPeak, ratio, flat: ratio <= tolerance };
}
