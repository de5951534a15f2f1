import type { StopSignal } from '../transport/stop-signal.js';

/**
 * Per-key call order inside one provider: a call on a key does not send anything until every earlier call on
 * that key has settled. Without it, an older call whose attempt failed could retry *after* a newer call on the
 * same key had committed (Mastra's renew timer does not wait for the previous renew), and the two would reach
 * etcd in the opposite order they were made. The transaction shapes make such reordering harmless; this keeps
 * it from happening in the first place, and lets a call that must chase its key's current revision (a release,
 * a transfer) rely on no later call of this provider having written the key in between.
 */
export class KeyLanes {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Waits for the calls queued before this one on `keyId`, then resolves with the function that lets the next
   * one go. Rejects (and lets the next one go when its turn comes) if `signal` aborts while waiting.
   */
  async enter(keyId: string, signal: StopSignal): Promise<() => void> {
    const previous = this.tails.get(keyId);
    let leave!: () => void;
    const mine = new Promise<void>((resolve) => (leave = resolve));
    const tail = previous === undefined ? mine : previous.then(() => mine);
    this.tails.set(keyId, tail);
    const done = () => {
      leave();
      // The last one out removes the lane; a later caller chained onto `tail` keeps it.
      if (this.tails.get(keyId) === tail) this.tails.delete(keyId);
    };
    if (previous === undefined) return done;
    try {
      await waitOrAbort(previous, signal);
    } catch (error) {
      // Our slot stays in the chain; it opens for the next caller as soon as the earlier calls have settled.
      void previous.then(done);
      throw error;
    }
    return done;
  }

  /** Number of keys with a call in progress (for tests). */
  get size(): number {
    return this.tails.size;
  }
}

function waitOrAbort(turn: Promise<void>, signal: StopSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void turn.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
