import { LeaseClock } from '../clock/lease-clock.js';
import type { ClockSource } from '../clock/clock-source.js';

/**
 * The holder etcd last named for each key, and when, for the Mastra adapters' `lastKnownOwnerMaxAgeMs`.
 *
 * `@mastra/core` 1.71 watches a run held by another process by polling `getLeaseOwner` and counts a failed read as
 * "that run finished" — during an etcd outage its callers then start a second run of the thread. Answering such a
 * read with the holder etcd named at most `maxAgeMs` ago keeps them waiting instead. The answer errs towards "busy":
 * a holder that has since let go costs a waiter up to `maxAgeMs`, never a second runner.
 *
 * Ages run on a `LeaseClock` (never slower than real time, a suspend included), from when the call that learnt the
 * holder was *sent* — etcd's answer was true at some instant after that — so an answer is never older than promised.
 * Entries past `maxAgeMs` are never answered, and are dropped oldest first as new ones come in, so the map holds
 * about the keys learnt within the last `maxAgeMs`.
 */
export class LastKnownOwners {
  private readonly clock: LeaseClock;
  /** Insertion order is learning order: every update re-inserts its key. */
  private readonly owners = new Map<string, { owner: string; learntAt: number }>();

  constructor(
    private readonly maxAgeMs: number,
    source?: ClockSource,
  ) {
    this.clock = new LeaseClock(source);
  }

  /** A reading to stamp a call with, taken before it is sent. */
  now(): number {
    return this.clock.now();
  }

  /** etcd named `owner` (or nobody: `undefined`) as the holder of `key` in answer to a call sent at `sentAt`. */
  learn(key: string, owner: string | undefined, sentAt: number): void {
    const known = this.owners.get(key);
    // An answer to an older call must not replace what a newer one taught.
    if (known !== undefined && known.learntAt > sentAt) return;
    this.owners.delete(key);
    if (owner !== undefined) this.owners.set(key, { owner, learntAt: sentAt });
    this.dropExpired();
  }

  /** What is known of `key` is no longer true (the holder let go, or a write found a holder it cannot name). */
  forget(key: string): void {
    this.owners.delete(key);
  }

  /** The holder etcd named for `key` at most `maxAgeMs` ago, if any. */
  recall(key: string): string | undefined {
    this.dropExpired();
    const known = this.owners.get(key);
    return known !== undefined && known.learntAt >= this.clock.now() - this.maxAgeMs ? known.owner : undefined;
  }

  /** Memory only: calls answered out of order can leave an expired entry behind a fresher one until that goes too. */
  private dropExpired(): void {
    const oldest = this.clock.now() - this.maxAgeMs;
    for (const [key, { learntAt }] of this.owners) {
      if (learntAt >= oldest) break;
      this.owners.delete(key);
    }
  }
}

/** Whether `error` says etcd could not be reached for the whole deadline (duck-typed, like Mastra's own checks). */
export function isUnreachable(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ELEASE_UNAVAILABLE';
}
