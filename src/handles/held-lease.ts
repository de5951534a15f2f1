import { noAnswerYet } from '../errors/no-answer-yet.js';
import { LeaseLostError, type LeaseLossReason } from '../errors/lease-lost.js';
import type { KeyWatch, KeyWatchEvent } from '../waiting/key-watch.js';
import type { LeaseOps } from '../waiting/lease-ops.js';
import { POLICY } from '../policy.js';
import type { LeaseHandle } from './lease-handle.js';
import { believedUntil, nextRenewAt, renewDeadlineMs, retryRenewAt, revisionAfter, windowState } from './renew-schedule.js';

/**
 * Endings after which the key may still carry our owner value, so the handle deletes it: others should
 * not wait a TTL for a lease nobody uses. After the other endings the key is already gone or someone else's.
 */
const RELEASE_AFTER: ReadonlySet<LeaseLossReason> = new Set(['expired', 'renew-failed', 'closed']);

/**
 * How long a handle whose window ended only on account of a clock jump waits for etcd's answer, retries included:
 * three of this cluster's attempt timeouts (a renew after a step needs a lease grant that reaches its need on both
 * clock scales, then its write, and may be shed once), never less than POLICY.clockJump.renewMs, never past the
 * call deadline. A check cut shorter than such an answer would end, after a mere clock step, a handle whose key is
 * ours; after a real suspend, the handle aborts this long after noticing it.
 */
export function clockJumpCheckMs(deadlineMs: number, attemptTimeoutMs: number): number {
  return Math.min(deadlineMs, Math.max(POLICY.clockJump.renewMs, 3 * attemptTimeoutMs));
}

/**
 * The `LeaseHandle` implementation. Three things can end it, whichever comes first:
 * - the renew loop: a renew every ttl/3 from the last success's send time; a renew answering false ends it;
 * - the expiry timer, re-armed from each successful renew's send time: no renew succeeded in time;
 * - a watch on the key from the revision after our acquire: the key deleted or written by another owner.
 * A window that looks over only because the wall clock jumped ahead is settled by etcd, not by the clock: a
 * suspend (etcd's time passed) and a forward wall-clock step (none did) look the same from inside the process.
 * The handle renews at once with a short deadline (clockJumpCheckMs, above; a shed try is tried again within it):
 * success means the key was ours all along (a renew compares our value, and nobody else can have held a key that never
 * left us), so the handle goes on; false ends it as refused; no answer in time ends it as expired. So a step costs one
 * renew, and after a real suspend a handle whose window ended still aborts within that deadline of noticing.
 * Timers are unref'd: a held lease alone does not keep the process alive (it then expires by its TTL).
 */
export class HeldLease implements LeaseHandle {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  /** Aborts an in-flight renew when the handle ends. */
  private readonly renewing = new AbortController();
  private until = 0;
  /** `clock.jumpedMs` when the write that opened the current window was sent. */
  private jumpedAtSend = 0;
  /** A renew is asking etcd whether a window that ended only on account of a clock jump really did. */
  private verifying = false;
  /** performance.now() by which that renew must have answered, retries included. */
  private verifyEndsAt = 0;
  private expiryTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  /** When the renew timer is meant to fire (LeaseClock), so it can be re-armed after a clock jump. */
  private renewAt: number | undefined;
  private watch: KeyWatch | undefined;
  private renewFailures = 0;
  private ended = false;
  /** The release started when the handle ended by itself (expired, renew failed, closed). */
  private cleanup: Promise<void> | undefined;
  private releasing: Promise<void> | undefined;
  private readonly onClosing = () => this.end('closed');
  /** Node's timers run on the monotonic clock and are late after a suspend: re-judge them when the clock jumps. */
  private readonly stopWatchingClock: () => void;

  constructor(
    private readonly ops: LeaseOps,
    readonly key: string,
    readonly owner: string,
    private readonly ttlMs: number,
    readonly fencingToken: string,
    acquiredSentAt: number,
    readonly metadata?: string,
  ) {
    this.signal = this.controller.signal;
    ops.observer.holdStarted();
    this.stopWatchingClock = ops.clock.onJump(() => this.afterClockJump());
    this.renewed(acquiredSentAt, ops.clock.jumpedMs);
    this.watch = ops.watch(key, (event) => this.onWatch(event), revisionAfter(fencingToken));
    if (ops.lifecycle.closing.aborted) this.onClosing();
    else ops.lifecycle.closing.addEventListener('abort', this.onClosing, { once: true });
  }

  release(): Promise<void> {
    this.releasing ??= this.releaseOnce();
    return this.releasing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }

  private async releaseOnce(): Promise<void> {
    if (this.end('released')) await this.ops.release(this.key, this.owner, this.metadata);
    else await this.cleanup;
  }

  private onWatch(event: KeyWatchEvent): void {
    switch (event.type) {
      case 'delete':
        this.end('deleted');
        break;
      case 'put':
        // Our own renews write our value; any other value means the key changed hands.
        if (event.owner !== this.owner || event.metadata !== this.metadata) this.end('taken');
        break;
      case 'broken':
        // Changes between the old watch's last event and a new watch could be missed: a renew settles it.
        this.watch?.close();
        this.watch = this.ops.watch(this.key, (e) => this.onWatch(e));
        this.scheduleRenew(this.ops.clock.now());
        break;
      case 'connected':
      case 'disconnected':
        break; // etcd3 resumes the watch after its last seen revision: nothing is missed across a reconnect
    }
  }

  /** `verify`: the renew that settles a window the clock jump made look over (see the class comment). */
  private async renew(verify = false): Promise<void> {
    if (this.ended || (this.verifying && !verify)) return;
    const sentAt = this.ops.clock.now();
    const jumpedAtSend = this.ops.clock.jumpedMs;
    const deadlineMs = verify ? Math.max(1, Math.floor(this.verifyEndsAt - performance.now())) : renewDeadlineMs(sentAt, this.until, this.ops.deadlineMs);
    let renewed: boolean;
    try {
      renewed = await this.ops.renew(this.key, this.owner, this.ttlMs, { signal: this.renewing.signal, deadlineMs }, this.metadata);
    } catch (error) {
      if (this.ended) return;
      if (verify) {
        // Shed or refused for space: no answer yet; ask again while the check's time lasts.
        if (noAnswerYet(error) && this.verifyEndsAt - performance.now() > 2 * POLICY.errorBackoff.firstMs) {
          this.renewTimer = setTimeout(() => void this.renew(true), POLICY.errorBackoff.firstMs);
          this.renewTimer.unref();
          return;
        }
        this.end('expired', error); // etcd could not say the key is still ours: the window may really be over
      } else if (this.verifying) {
        // the verifying renew decides
      } else if (noAnswerYet(error)) {
        // Unreachable, shed or refused for space: no answer about the key yet. The expiry timer ends the handle if no
        // retry succeeds in time.
        this.renewFailures++;
        this.scheduleRenew(retryRenewAt(this.ops.clock.now(), this.until, this.renewFailures));
      } else {
        this.end('renew-failed', error);
      }
      return;
    }
    if (this.ended) return;
    if (!renewed) {
      this.end('renew-refused');
      return;
    }
    if (verify) this.verifying = false;
    this.renewFailures = 0;
    this.renewed(sentAt, jumpedAtSend);
  }

  /** A write sent at `sentAt` succeeded: the belief window now ends ttlMs after it (unless a later-sent one's did). */
  private renewed(sentAt: number, jumpedAtSend: number): void {
    const until = believedUntil(sentAt, this.ttlMs);
    if (until <= this.until) return; // an older renew answered after a newer one: the newer window stands
    this.until = until;
    this.jumpedAtSend = jumpedAtSend;
    this.armExpiry();
    this.scheduleRenew(nextRenewAt(sentAt, this.ttlMs));
  }

  private armExpiry(): void {
    clearTimeout(this.expiryTimer);
    this.expiryTimer = setTimeout(() => this.expireIfDue(), Math.max(0, this.until - this.ops.clock.now()));
    this.expiryTimer.unref();
  }

  /** The timer fired; on the lease clock (which counts a suspend) the window may or may not be over yet. */
  private expireIfDue(): void {
    if (this.ended || this.verifying) return;
    const now = this.ops.clock.now();
    // That reading can itself have seen the jump, and its listener settled the window already.
    if (this.ended || this.verifying) return;
    switch (windowState(now, this.until, this.ops.clock.jumpedMs - this.jumpedAtSend)) {
      case 'open':
        this.armExpiry();
        break;
      case 'over':
        this.end('expired');
        break;
      case 'jumped-past':
        this.verifying = true;
        this.verifyEndsAt = performance.now() + clockJumpCheckMs(this.ops.deadlineMs, this.ops.attemptTimeoutMs());
        clearTimeout(this.renewTimer);
        void this.renew(true);
        break;
    }
  }

  /**
   * The machine was suspended (or the wall clock stepped ahead): the window may have ended while nothing could
   * run. Settle it at once if it looks over, else re-arm both timers for what is really left.
   */
  private afterClockJump(): void {
    if (this.ended) return;
    this.expireIfDue();
    if (!this.ended && !this.verifying && this.renewAt !== undefined) this.scheduleRenew(this.renewAt);
  }

  private scheduleRenew(at: number): void {
    clearTimeout(this.renewTimer);
    this.renewAt = at;
    this.renewTimer = setTimeout(() => void this.renew(), Math.max(0, at - this.ops.clock.now()));
    this.renewTimer.unref();
  }

  /** Ends the handle once; returns false if it had already ended. */
  private end(reason: LeaseLossReason, cause?: unknown): boolean {
    if (this.ended) return false;
    this.ended = true;
    clearTimeout(this.expiryTimer);
    clearTimeout(this.renewTimer);
    this.stopWatchingClock();
    this.watch?.close();
    this.renewing.abort();
    this.ops.lifecycle.closing.removeEventListener('abort', this.onClosing);
    this.ops.observer.holdEnded();
    this.ops.observer.lost(this.key, this.owner, reason); // once per handle, whichever way it learned
    if (RELEASE_AFTER.has(reason)) {
      this.cleanup = this.ops.release(this.key, this.owner, this.metadata).catch((error: unknown) => {
        this.ops.logger.warn?.('could not release an ended lease handle; the key expires by its TTL', {
          key: this.key,
          owner: this.owner,
          error,
        });
      });
      this.ops.lifecycle.track(this.cleanup);
    }
    this.controller.abort(new LeaseLostError(this.key, this.owner, reason, cause));
    return true;
  }
}
