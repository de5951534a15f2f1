import type { LeaseCallOptions } from '../config/call-options.js';
import type { LeaseObserver } from '../metrics/observer.js';
import type { AcquireDecision } from '../results.js';
import type { LeaseClock } from '../clock/lease-clock.js';
import type { LeaseLogger } from '../config/options.js';
import type { OpenKeyWatch } from './key-watch.js';
import type { Lifecycle } from './lifecycle.js';

/**
 * The provider as waiters and handles see it: the lease operations on already validated arguments,
 * a key watch, and the provider's lifecycle. Keeping this narrow lets the waiting and renewing logic
 * be tested against a fake without a cluster.
 */
export interface LeaseOps {
  /** The provider's own decision (with its fencing token), never the public shape `contractResults` chooses. */
  acquire(key: string, owner: string, ttlMs: number, metadata?: string): Promise<AcquireDecision>;
  /** Not reported to the observer: a handle reports its loss itself, once, whichever way it learned of it. */
  renew(key: string, owner: string, ttlMs: number, call?: LeaseCallOptions, metadata?: string): Promise<boolean>;
  release(key: string, owner: string, metadata?: string): Promise<void>;
  /** Deletes the key only if it still is the write with revision `fencingToken` by `owner`. */
  releaseWrite(key: string, owner: string, fencingToken: string, metadata?: string): Promise<void>;
  watch: OpenKeyWatch;
  /** The provider's clock: every belief deadline is measured on it (it counts a suspend; performance.now() does not). */
  readonly clock: LeaseClock;
  /** The provider's per-call deadline (`deadlineMs`). */
  readonly deadlineMs: number;
  /** What one attempt is given now: the attempt timeout adapted to how fast this cluster answers (never below its floor). */
  attemptTimeoutMs(): number;
  readonly lifecycle: Lifecycle;
  readonly observer: LeaseObserver;
  readonly logger: LeaseLogger;
}
