/**
 * Polls `probe` until it yields a value, instead of sleeping a fixed time: fast when the
 * cluster is fast, and a clear error naming the condition when it never comes. A probe that
 * throws ends the wait at once (used for "this can no longer happen", e.g. a member exited).
 */
export async function waitUntil<T>(
  condition: string,
  probe: () => Promise<T | undefined>,
  options: { readonly timeoutMs: number; readonly intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  const intervalMs = options.intervalMs ?? 100;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${condition}`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, remaining)));
  }
}
