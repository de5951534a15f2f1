import type { Recorder } from '../../../safety-checker/recorder.js';

export interface Poller {
  /** The poller's winning acquire has returned. */
  readonly won: boolean;
  /** Stops polling and waits for the call in flight. */
  stop(): Promise<void>;
}

/**
 * Client B of the safety scenarios: tries to acquire `key` every `everyMs` until it wins (or is stopped),
 * each attempt recorded. It is what turns "the key vanished early" into a second believing owner, which
 * the overlap check then sees.
 */
export function pollAcquire(recorder: Recorder, key: string, owner: string, ttlMs: number, everyMs = 50): Poller {
  let stopped = false;
  let won = false;
  const running = (async () => {
    while (!stopped && !won) {
      won = (await recorder.acquire(key, owner, ttlMs)) === true;
      if (!won) await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    get won() {
      return won;
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}
