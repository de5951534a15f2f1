import { setMaxListeners } from 'node:events';

/**
 * What the provider's `close()` needs from waiters and handles: one signal that tells them all to stop,
 * and a place to park the clean-up writes they start on the way out (undoing an abandoned acquire,
 * releasing a held lease), so `close()` can let those finish before it shuts the transport down.
 */
export class Lifecycle {
  private readonly controller = new AbortController();
  private readonly cleanups = new Set<Promise<unknown>>();

  constructor() {
    // Every waiter and handle listens on `closing`, one listener each, removed when it ends: that many is the design,
    // not a leak, and Node's warning past ten would tell a user with eleven handles otherwise.
    setMaxListeners(0, this.controller.signal);
  }

  /** Aborts when the provider starts closing. */
  get closing(): AbortSignal {
    return this.controller.signal;
  }

  /** Tracks a clean-up write until it settles. Its failure is the caller's to report; here it is only awaited. */
  track(cleanup: Promise<unknown>): void {
    const settled = cleanup.then(
      () => undefined,
      () => undefined,
    );
    this.cleanups.add(settled);
    void settled.then(() => this.cleanups.delete(settled));
  }

  /** Number of clean-up writes still in flight (for tests). */
  get pendingCleanups(): number {
    return this.cleanups.size;
  }

  /**
   * Stops every waiter and handle (synchronously, through `closing`), then waits for their clean-up
   * writes, at most `boundMs`: a lease whose release could not be sent in time still expires by its TTL.
   */
  async close(boundMs: number): Promise<void> {
    this.controller.abort();
    if (this.cleanups.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
    });
    try {
      // Clean-ups started while others settle (a handle releasing after its renew settles) are awaited too.
      while (this.cleanups.size > 0) {
        const timedOut = await Promise.race([Promise.all([...this.cleanups]).then(() => false), bound.then(() => true)]);
        if (timedOut) return;
      }
    } finally {
      clearTimeout(timer);
    }
  }
}
