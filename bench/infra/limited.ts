/**
 * Runs `fn` over `items` with at most `limit` calls in flight. Used for bulk cleanup (revoking
 * leases) so that it neither floods etcd nor takes one round trip per item in sequence.
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
