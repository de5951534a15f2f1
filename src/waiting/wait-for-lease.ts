import { noAnswerYet } from '../errors/no-answer-yet.js';
import type { AcquireDecision } from '../results.js';
import type { KeyWatch, KeyWatchEvent } from './key-watch.js';
import type { LeaseOps } from './lease-ops.js';
import { errorBackoffMs, recheckDelayMs } from './schedule.js';
import { stopSignal } from './stop.js';
import type { WaitForLeaseOptions, WaitForLeaseResult } from './wait-options.js';
import { Wakeup } from './wakeup.js';

/** A won wait, with the send time of the winning attempt: the holder's belief window starts there. */
interface WonLease {
  result: WaitForLeaseResult;
  /** LeaseClock reading just before the winning acquire was sent. */
  sentAt: number;
}

/**
 * Acquires `key` for `owner`, waiting as long as someone else holds it.
 *
 * 1. Try to acquire. A win ends the wait (one round trip when the key is free).
 * 2. On a loss, open a watch on the key and wait for a reason to try again: the key deleted (released,
 *    or its etcd lease expired), written with our own owner (transferred to us), or the watch
 *    (re)connected. The first 'connected' covers the gap between the lost attempt and the watch's start;
 *    later ones cover reconnects after a member died. A jittered re-check every 1–5 s is the safety net
 *    for a watch that stalls without an error (a member cut off from the leader keeps the stream open).
 * 3. Errors that are no answer yet (etcd unavailable, the attempt shed under overload or refused under the NOSPACE
 *    alarm) do not end the wait; they back off and try again until the wait's own timeout.
 *
 * Giving up (timeout, abort, close) never leaves the key held for the caller: an attempt in flight is
 * undone once it settles, and an earlier attempt that failed ambiguously (it may have committed) is
 * released.
 */
export function waitForLease(
  ops: LeaseOps,
  key: string,
  owner: string,
  ttlMs: number,
  options: WaitForLeaseOptions | undefined,
  operation = 'waitForLease',
): Promise<WonLease> {
  const waiting = waitLoop(ops, key, owner, ttlMs, options, operation);
  // close() waits for waiters to settle: by then each has registered its clean-up writes.
  ops.lifecycle.track(waiting);
  return waiting;
}

async function waitLoop(
  ops: LeaseOps,
  key: string,
  owner: string,
  ttlMs: number,
  options: WaitForLeaseOptions | undefined,
  operation: string,
): Promise<WonLease> {
  const stop = stopSignal(operation, options, ops.lifecycle.closing);
  const metadata = options?.metadata;
  const wake = new Wakeup();
  let watch: KeyWatch | undefined;
  // True after an attempt failed with an error: it may have committed, so until a later attempt answers
  // definitely, giving up must release the key.
  let maybeHeld = false;
  let failures = 0;

  const onWatch = (event: KeyWatchEvent): void => {
    switch (event.type) {
      case 'delete':
      case 'connected':
        wake.notify();
        break;
      case 'put':
        // handed to us by a transfer: confirm with an acquire
        if (event.owner === owner && event.metadata === metadata) wake.notify();
        break;
      case 'broken':
        watch?.close();
        watch = undefined;
        wake.notify();
        break;
      case 'disconnected':
        break;
    }
  };

  ops.observer.waiterStarted();
  try {
    for (;;) {
      if (stop.signal.aborted) throw stop.signal.reason;
      wake.clear(); // events from before this attempt are answered by the attempt itself
      const sentAt = ops.clock.now();
      const attempt = ops.acquire(key, owner, ttlMs, metadata);
      const settled = await settleOrStop(attempt, stop.signal);
      if (settled.kind === 'stopped' || stop.signal.aborted) {
        // The attempt's own outcome decides what to undo; it supersedes any earlier ambiguity.
        maybeHeld = false;
        undoAbandoned(ops, key, owner, attempt, metadata);
        throw stop.signal.reason;
      }
      if (settled.kind === 'value') {
        const decision = settled.value;
        if (decision.acquired) return { result: { acquired: true, owner, fencingToken: decision.fencingToken }, sentAt };
        maybeHeld = false;
        failures = 0;
      } else {
        // Unreachable, shed or refused for space: no answer yet, and the wait has a timeout of its own.
        if (!noAnswerYet(settled.error)) throw settled.error;
        maybeHeld = true;
        failures++;
        ops.logger.debug?.('waitForLease: acquire attempt failed, retrying', { error: settled.error, failures });
      }
      watch ??= ops.watch(key, onWatch);
      await wake.wait(failures > 0 ? errorBackoffMs(failures, ttlMs) : recheckDelayMs(ttlMs), stop.signal);
    }
  } catch (error) {
    if (maybeHeld) cleanUp(ops, key, owner, ops.release(key, owner, metadata));
    throw error;
  } finally {
    watch?.close();
    stop.dispose();
    ops.observer.waiterEnded();
  }
}

type Settled<T> = { kind: 'value'; value: T } | { kind: 'error'; error: unknown } | { kind: 'stopped' };

/** Resolves with the attempt's outcome, or with 'stopped' as soon as `stop` aborts (the attempt runs on). */
function settleOrStop<T>(pending: Promise<T>, stop: AbortSignal): Promise<Settled<T>> {
  return new Promise((resolve) => {
    const onStop = () => resolve({ kind: 'stopped' });
    stop.addEventListener('abort', onStop, { once: true });
    pending.then(
      (value) => {
        stop.removeEventListener('abort', onStop);
        resolve({ kind: 'value', value });
      },
      (error: unknown) => {
        stop.removeEventListener('abort', onStop);
        resolve({ kind: 'error', error });
      },
    );
  });
}

/**
 * An acquire the waiter no longer waits for: if it wins, delete exactly the write it made (compare on
 * owner and revision); if it fails, it may still have committed, so release by owner.
 */
function undoAbandoned(ops: LeaseOps, key: string, owner: string, attempt: Promise<AcquireDecision>, metadata: string | undefined): void {
  const undo = attempt.then(
    (decision) => (decision.acquired ? ops.releaseWrite(key, owner, decision.fencingToken, metadata) : undefined),
    () => ops.release(key, owner, metadata),
  );
  cleanUp(ops, key, owner, undo);
}

function cleanUp(ops: LeaseOps, key: string, owner: string, write: Promise<unknown>): void {
  ops.lifecycle.track(
    write.catch((error: unknown) => {
      // The key then stays held until its TTL runs out, like the lease of a crashed process.
      ops.logger.warn?.('could not release a lease its waiter gave up on; it expires by its TTL', { key, owner, error });
    }),
  );
}
