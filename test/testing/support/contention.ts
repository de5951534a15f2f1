import type { RecordableProvider } from '../../../safety-checker/recorder.js';
import type { RecordedOp } from '../../../safety-checker/types.js';

/**
 * Owners contending for keys, as workers of an app do: each owner, every `intervalMs`, tries to acquire the keys it
 * does not hold, and renews a key it holds once `renewEveryMs` passed since its last grant (holders renew at a fraction
 * of the TTL; waiting workers retry often). What an owner believes comes only from the answers it got. `keys` may grow
 * while the run lasts. Runs until `stop()`.
 */
export function contend(providers: ReadonlyMap<string, RecordableProvider>, keys: string[], options: { ttlMs: number; intervalMs: number; renewEveryMs: number }) {
  let running = true;
  const loops = [...providers].map(async ([owner, provider]) => {
    /** Key → when its last grant was sent. */
    const held = new Map<string, number>();
    while (running) {
      const started = performance.now();
      await Promise.all(
        [...keys].map(async (key) => {
          try {
            const sentAt = performance.now();
            const grantedAt = held.get(key);
            if (grantedAt === undefined) {
              if ((await provider.acquireLease(key, owner, options.ttlMs)).acquired) held.set(key, sentAt);
            } else if (sentAt - grantedAt >= options.renewEveryMs) {
              if (await provider.renewLease(key, owner, options.ttlMs)) held.set(key, sentAt);
              else held.delete(key);
            }
          } catch {
            // An error tells the owner nothing: it keeps what it believed, and its window runs out by the TTL.
          }
        }),
      );
      // Pacing of the workload, not a wait for a condition.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, options.intervalMs - (performance.now() - started))));
    }
  });
  return {
    async stop(): Promise<void> {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Calls answered (`ok` or `lost`) after `since`, per client. */
export function answeredSince(history: readonly RecordedOp[], since: number): number {
  return history.filter((op) => op.outcome !== 'error' && op.sentAt >= since).length;
}
