/**
 * Resolves once `condition` holds, checking every `intervalMs`; rejects with `description`
 * after `timeoutMs`. Tests wait on what they need to see, never on a guessed duration.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  description: string,
  { timeoutMs = 10_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
