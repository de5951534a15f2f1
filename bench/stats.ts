import { LatencyHistogram } from './histogram.js';

/**
 * Pure statistics for the benchmark: no clocks, no I/O, so every figure the report prints can be
 * unit-tested (bench/stats.test.ts).
 */

/** What one scenario produced in one round. */
export interface Measurement {
  /** Completed operations (successful or not). */
  ops: number;
  /** Operations that threw or returned an unexpected result. */
  errors: number;
  /** Wall time from the first send to the last completion, in ms. */
  elapsedMs: number;
  /** Latency of every completed operation, in ms. */
  latency: LatencyHistogram;
}

export interface Summary {
  ops: number;
  errors: number;
  elapsedMs: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  opsPerSecond: number;
}

/** Operations per second; 0 when nothing ran (never Infinity, which JSON cannot carry). */
export function throughput(ops: number, elapsedMs: number): number {
  return elapsedMs > 0 ? (ops * 1000) / elapsedMs : 0;
}

/**
 * Pools the rounds of one scenario: latencies are merged and throughput is total operations over
 * total time, so a short round does not weigh as much as a long one.
 */
export function combine(rounds: readonly Measurement[]): Measurement {
  const latency = new LatencyHistogram();
  let ops = 0;
  let errors = 0;
  let elapsedMs = 0;
  for (const r of rounds) {
    ops += r.ops;
    errors += r.errors;
    elapsedMs += r.elapsedMs;
    latency.add(r.latency);
  }
  return { ops, errors, elapsedMs, latency };
}

export function summarize(m: Measurement): Summary {
  const h = m.latency;
  return {
    ops: m.ops,
    errors: m.errors,
    elapsedMs: m.elapsedMs,
    p50: h.percentile(50),
    p90: h.percentile(90),
    p99: h.percentile(99),
    max: h.max,
    mean: h.mean,
    opsPerSecond: throughput(m.ops, m.elapsedMs),
  };
}

/**
 * A summary of calls that each claimed `keys` keys, restated per key: counts and throughput scale,
 * latencies stay per call (a key is claimed when its call answers).
 */
export function perKey(s: Summary, keys: number): Summary {
  return { ...s, ops: s.ops * keys, opsPerSecond: s.opsPerSecond * keys };
}

/**
 * Median (lower middle for an even count) of per-round ratios: pairs each round with itself, so drift
 * in machine load between rounds cancels out. Non-finite ratios (a round that measured nothing) are left out.
 */
export function medianRatio(numerators: readonly number[], denominators: readonly number[]): number {
  if (numerators.length !== denominators.length) throw new RangeError('ratio series differ in length');
  const ratios = Float64Array.from(
    numerators.map((n, i) => n / denominators[i]!).filter((r) => Number.isFinite(r)),
  ).sort();
  return ratios.length ? ratios[Math.ceil(ratios.length / 2) - 1]! : Number.NaN;
}
