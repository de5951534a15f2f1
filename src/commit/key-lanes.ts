import type { StopSignal } from '../transport/stop-signal.js';
import { Superseded } from './superseded.js';

/** A call that takes the place of earlier waiting calls with its tag; they settle like `outcome`, its own result. */
export interface TakeOver {
  readonly tag: string;
  readonly outcome: Promise<unknown>;
}

interface Waiter {
  readonly turn: () => void;
  readonly tag: string | undefined;
  readonly superseded: (by: Promise<unknown>) => void;
}

/**
 * Per-key call order inside one provider: a call on a key does not send anything until every earlier call on
 * that key has settled. Without it, an older call whose attempt failed could retry *after* a newer call on the
 * same key had committed (Mastra's renew timer does not wait for the previous renew), and the two would reach
 * etcd in the opposite order they were made. The transaction shapes make such reordering harmless; this keeps
 * it from happening in the first place, and lets a call that must chase its key's current revision (a release,
 * a transfer) rely on no later call of this provider having written the key in between.
 *
 * A waiting call with a tag is superseded by a later call with the same tag: of two renewals of one key by one owner
 * waiting behind a slow call, only the later is worth sending (it renews further), and a key renewed on a timer while
 * etcd lags would otherwise gather one waiting call per tick. The earlier one then settles like the later (superseded.ts).
 */
export class KeyLanes {
  /** Keys with a call in progress, each with the calls waiting for their turn, in the order they came. */
  private readonly lanes = new Map<string, Waiter[]>();

  /**
   * Enters `keyId`'s lane at once when no call holds it (the common case), without a promise; undefined when one
   * does (then `enter` waits for the turn). Returns the function that lets the next call go.
   */
  tryEnter(keyId: string): (() => void) | undefined {
    if (this.lanes.has(keyId)) return undefined;
    const waiting: Waiter[] = [];
    this.lanes.set(keyId, waiting);
    return this.leaver(keyId, waiting);
  }

  /**
   * Waits for the calls queued before this one on `keyId`, then resolves with the function that lets the next
   * one go. Rejects with the signal's reason if `signal` aborts while waiting. With `takeOver`, calls waiting with the
   * same tag are superseded by this one: they reject with `Superseded`, carrying this call's `outcome` for them to
   * follow; the calls behind them keep their order.
   */
  async enter(keyId: string, signal: StopSignal, takeOver?: TakeOver): Promise<() => void> {
    const free = this.tryEnter(keyId);
    if (free !== undefined) return free;
    if (signal.aborted) throw signal.reason;
    const waiting = this.lanes.get(keyId)!;
    const tag = takeOver?.tag;
    if (takeOver !== undefined) {
      for (let i = waiting.length - 1; i >= 0; i--) if (waiting[i]!.tag === tag) waiting.splice(i, 1)[0]!.superseded(takeOver.outcome);
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = waiting.indexOf(waiter);
        if (index >= 0) waiting.splice(index, 1);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        tag,
        turn: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        superseded: (by) => {
          signal.removeEventListener('abort', onAbort);
          reject(new Superseded(by));
        },
      };
      waiting.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    return this.leaver(keyId, waiting);
  }

  /** Number of keys with a call in progress (for tests). */
  get size(): number {
    return this.lanes.size;
  }

  /** Lets the first waiting call in, or closes the lane when none waits. Idempotent. */
  private leaver(keyId: string, waiting: Waiter[]): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = waiting.shift();
      if (next !== undefined) next.turn();
      else this.lanes.delete(keyId);
    };
  }
}
