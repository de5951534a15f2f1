import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `probe` until it yields a value (not undefined); rejects naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  while (true) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (performance.now() >= deadline) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`, { cause: lastError });
    }
    await sleep(everyMs);
  }
}
