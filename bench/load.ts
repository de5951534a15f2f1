import { LatencyHistogram } from './histogram.js';
import type { Measurement } from './stats.js';

/**
 * One operation of a scenario. `caller` is the closed-loop caller's index and `seq` a number unique
 * within the run, so each call can derive a fresh key. Resolves `false` for a result the scenario
 * did not expect (e.g. a fresh key that was not acquired) — counted as an error, like a throw.
 */
export type Operation = (caller: number, seq: number) => Promise<boolean>;

export interface LoadOptions {
  /** Closed-loop callers: each sends its next operation as soon as the previous one answered. */
  callers: number;
  /** Stop sending after this long (ms). */
  durationMs: number;
  /** Stop sending after this many operations, whatever the time: bounds memory and a runaway fast path. */
  maxOps: number;
  /** Stop after this many errors: a broken scenario should fail fast, not spin for its whole duration. */
  maxErrors?: number;
  /**
   * Arrival schedule: operation `seq` is not sent before `seq × intervalMs` after the start (callers
   * wait for their slot). Models keys arriving over time instead of in one burst. Default: no pacing.
   */
  intervalMs?: number;
  /** Waits until a clock time; injectable for tests. */
  sleepUntil?: (time: number) => Promise<void>;
  /** Clock in ms; injectable for tests. */
  now?: () => number;
}

export interface LoadResult extends Measurement {
  /** The first error seen, to explain a non-zero `errors`. */
  firstError?: string;
}

/**
 * Runs `callers` closed loops of `op` for `durationMs` (or `maxOps`), recording every latency.
 * Closed loops (not a fixed arrival rate) match how Mastra calls a lease provider: a run awaits its
 * acquire before doing anything else. Throughput is counted from the first send to the last answer.
 */
export async function runLoad(op: Operation, options: LoadOptions): Promise<LoadResult> {
  const now = options.now ?? (() => performance.now());
  const maxErrors = options.maxErrors ?? 100;
  const interval = options.intervalMs ?? 0;
  const sleepUntil = options.sleepUntil ?? ((time: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, time - now()))));
  const latency = new LatencyHistogram();
  let issued = 0;
  let errors = 0;
  let firstError: string | undefined;
  const start = now();
  const endAt = start + options.durationMs;
  let lastDone = start;

  const caller = async (index: number): Promise<void> => {
    while (issued < options.maxOps && errors < maxErrors && now() < endAt) {
      const seq = issued++;
      // Latency counts from the slot, not from when the caller started waiting for it.
      if (interval > 0 && now() < start + seq * interval) await sleepUntil(start + seq * interval);
      const sentAt = now();
      let ok: boolean;
      try {
        ok = await op(index, seq);
        if (!ok) firstError ??= 'unexpected result';
      } catch (error) {
        ok = false;
        firstError ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
      lastDone = now();
      latency.record(lastDone - sentAt);
      if (!ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: options.callers }, (_, i) => caller(i)));
  const result: LoadResult = { ops: latency.count, errors, elapsedMs: lastDone - start, latency };
  if (firstError !== undefined) result.firstError = firstError;
  return result;
}
