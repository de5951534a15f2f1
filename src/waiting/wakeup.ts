/** Why `Wakeup.wait` returned. */
type WakeReason = 'notified' | 'timer' | 'stopped';

/**
 * A level-triggered wake-up latch between watch events and a waiting loop.
 *
 * A notification that arrives while nobody waits (for example during an acquire attempt) is kept, so
 * the next `wait` returns at once: a delete seen mid-attempt always causes one more attempt, never a
 * sleep until the next safety-net re-check. `clear()` drops what happened before an attempt started.
 */
export class Wakeup {
  private pending = false;
  private wake: ((reason: WakeReason) => void) | undefined;

  notify(): void {
    if (this.wake) this.wake('notified');
    else this.pending = true;
  }

  clear(): void {
    this.pending = false;
  }

  /** Resolves on a notification (also one already pending), after `ms`, or when `stop` aborts. Never rejects. */
  wait(ms: number, stop: AbortSignal): Promise<WakeReason> {
    if (stop.aborted) return Promise.resolve('stopped');
    if (this.pending) {
      this.pending = false;
      return Promise.resolve('notified');
    }
    return new Promise<WakeReason>((resolve) => {
      const finish = (reason: WakeReason) => {
        clearTimeout(timer);
        stop.removeEventListener('abort', onStop);
        this.wake = undefined;
        resolve(reason);
      };
      const onStop = () => finish('stopped');
      // Not unref'd: a caller awaiting a lease is pending work. Every way out of the wait clears it.
      const timer = setTimeout(() => finish('timer'), Math.max(0, ms));
      stop.addEventListener('abort', onStop, { once: true });
      this.wake = finish;
    });
  }
}
