import { LeaseAbortedError } from '../errors/aborted.js';
import { isLeaseError } from '../errors/lease-error.js';
import { EtcdUnavailableError, type EndpointCause } from '../errors/unavailable.js';
import { untilStopped, type StopSignal } from './stop-signal.js';

export interface CallBudget {
  /** Overall deadline of the call in ms from now, retries included. */
  deadlineMs: number;
  /** Any of these aborting ends the call (the caller's signal, the provider's lifetime). */
  signals?: readonly AbortSignal[];
  /**
   * The scopes of one provider's lifetime: ending it ends every open scope with its reason. Cheaper than listening
   * on a lifetime AbortSignal from every call (thousands at once, each adding and removing a listener).
   */
  lifetime?: OpenScopes;
}

/** Every CallScope open under one lifetime; `end(reason)` stops them all, and every scope opened after. */
export class OpenScopes {
  private readonly scopes = new Set<CallScope>();
  private endedWith: { reason: unknown } | undefined;

  add(scope: CallScope): void {
    if (this.endedWith) scope.stop(this.endedWith.reason);
    else this.scopes.add(scope);
  }

  delete(scope: CallScope): void {
    this.scopes.delete(scope);
  }

  end(reason: unknown): void {
    this.endedWith ??= { reason };
    for (const scope of [...this.scopes]) scope.stop(reason);
    this.scopes.clear();
  }
}

/**
 * The life of one logical call: its overall deadline and the signals that may end it early. It is itself the
 * call's StopSignal (see stop-signal.ts): no AbortController per call.
 *
 * Deliberately a plain timer, not AbortSignal.timeout/any: a composite holds its timeout signal only weakly, and
 * on Node 20 a collected timeout signal never fires — the call would hang past its deadline. The timer is ref'd on
 * purpose: a pending call keeps the process alive until it settles.
 */
export class CallScope implements StopSignal {
  /** `performance.now()` when the call began (for the elapsed time its error reports). */
  readonly startedAt = performance.now();
  attempts = 0;
  lastError: unknown;
  aborted = false;
  reason: unknown;
  private listeners: Array<() => void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly unlinks: Array<() => void> | undefined;

  constructor(
    readonly operation: string,
    private readonly budget: CallBudget,
    /** Each endpoint's cause when the call gives up for want of etcd (none known: empty). */
    private readonly endpointCauses: () => readonly EndpointCause[] = () => [],
  ) {
    this.timer = setTimeout(() => this.stop(undefined), budget.deadlineMs);
    budget.lifetime?.add(this);
    const signals = budget.signals;
    if (signals !== undefined && signals.length > 0) {
      this.unlinks = signals.map((signal) => {
        const forward = () => this.stop(signal.reason);
        if (signal.aborted) forward();
        else signal.addEventListener('abort', forward, { once: true });
        return () => signal.removeEventListener('abort', forward);
      });
    }
  }

  /** This scope as the call's stop signal. */
  get signal(): StopSignal {
    return this;
  }

  /** Ends the call: its listeners run once, in the order they were added. */
  stop(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return; // as AbortSignal: listeners added after the abort never run
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.listeners;
    if (!listeners) return;
    const index = listeners.lastIndexOf(listener);
    if (index >= 0) listeners.splice(index, 1);
  }

  remainingMs(): number {
    return this.budget.deadlineMs - (performance.now() - this.startedAt);
  }

  /** What the call rejects with once it has ended: unavailable at the deadline, else the caller's reason. */
  giveUpError(): Error {
    const callerAborted = this.reason !== undefined || (this.budget.signals ?? []).some((s) => s.aborted);
    if (!callerAborted) {
      return new EtcdUnavailableError(this.operation, this.attempts, performance.now() - this.startedAt, this.lastError, this.endpointCauses());
    }
    const reason: unknown = this.reason;
    // A typed reason (e.g. ProviderClosedError from close()) is what the caller should see.
    return isLeaseError(reason) && reason instanceof Error ? reason : new LeaseAbortedError(this.operation, reason);
  }

  /** Settles like `work`, or rejects with `giveUpError()` as soon as the call ends (then `work` runs on, unheard). */
  race<T>(work: Promise<T>): Promise<T> {
    return untilStopped(this, work, () => this.giveUpError());
  }

  /** Waits `ms` (unref'd: a pending backoff must not keep a closing process alive), or less if the call ends first. */
  sleep(ms: number): Promise<void> {
    if (this.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.addEventListener('abort', done);
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.budget.lifetime?.delete(this);
    if (this.unlinks) for (const unlink of this.unlinks) unlink();
  }
}
