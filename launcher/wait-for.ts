import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  readonly timeoutMs: number;
  /** Pause between two probes. @default 25 */
  readonly intervalMs?: number;
}

/**
 * Polls `probe` until it yields a value other than `undefined` or `false`, instead of sleeping a fixed
 * time: fast when the condition comes quickly, and a clear error naming `what` when it never comes.
 * A probe that throws ends the wait at once (for "this can no longer happen", e.g. a member exited).
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: WaitOptions,
): Promise<T> {
  const deadline = performance.now() + options.timeoutMs;
  const intervalMs = options.intervalMs ?? 25;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    const remaining = deadline - performance.now();
    if (remaining <= 0) throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${what}`);
    await sleep(Math.min(intervalMs, remaining));
  }
}
