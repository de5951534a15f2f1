/** Polls `probe` until it returns a value other than undefined, or rejects after `timeoutMs`. */
export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string, everyMs = 25): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Lets wall-clock time pass. Only for TTL tests, where the passage of time *is* the condition. */
export function elapse(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
