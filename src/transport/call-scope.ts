import { LeaseAbortedError } from '../errors/aborted.js';
import { isLeaseError } from '../errors/lease-error.js';
import { EtcdUnavailableError, type EndpointCause } from '../errors/unavailable.js';

export interface CallBudget {
  /** Overall deadline of the call in ms from now, retries included. */
  deadlineMs: number;
  /** Any of these aborting ends the call (the caller's signal, the provider's lifetime). */
  signals?: readonly AbortSignal[];
}

/**
 * The life of one logical call: its overall deadline and the signals that may end it early, as one AbortSignal.
 *
 * Deliberately a plain timer, not AbortSignal.timeout/any: a composite holds its timeout signal only weakly, and
 * on Node 20 a collected timeout signal never fires — the call would hang past its deadline. (cockatiel's own
 * timeout policy is a timer too, but it is built per policy, and every call here has its own deadline.) The
 * timer is ref'd on purpose: a pending call keeps the process alive until it settles.
 */
export class CallScope {
  readonly signal: AbortSignal;
  /** `performance.now()` when the call began (for the elapsed time its error reports). */
  readonly startedAt = performance.now();
  attempts = 0;
  lastError: unknown;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly unlinks: Array<() => void>;

  constructor(
    readonly operation: string,
    private readonly budget: CallBudget,
    /** Each endpoint's cause when the call gives up for want of etcd (none known: empty). */
    private readonly endpointCauses: () => readonly EndpointCause[] = () => [],
  ) {
    this.signal = this.controller.signal;
    this.timer = setTimeout(() => this.controller.abort(), budget.deadlineMs);
    this.unlinks = (budget.signals ?? []).map((signal) => {
      const forward = () => this.controller.abort(signal.reason);
      if (signal.aborted) forward();
      else signal.addEventListener('abort', forward, { once: true });
      return () => signal.removeEventListener('abort', forward);
    });
  }

  remainingMs(): number {
    return this.budget.deadlineMs - (performance.now() - this.startedAt);
  }

  /** What the call rejects with once its signal fired: unavailable at the deadline, else the caller's reason. */
  giveUpError(): Error {
    const callerAborted = (this.budget.signals ?? []).some((s) => s.aborted);
    if (!callerAborted) {
      return new EtcdUnavailableError(this.operation, this.attempts, performance.now() - this.startedAt, this.lastError, this.endpointCauses());
    }
    const reason: unknown = this.signal.reason;
    // A typed reason (e.g. ProviderClosedError from close()) is what the caller should see.
    return isLeaseError(reason) && reason instanceof Error ? reason : new LeaseAbortedError(this.operation, reason);
  }

  /** Settles like `work`, or rejects with `giveUpError()` as soon as the call ends (then `work` runs on, unheard). */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.signal.aborted) {
      work.catch(() => {});
      return Promise.reject(this.giveUpError());
    }
    return new Promise<T>((resolve, reject) => {
      const onStop = () => reject(this.giveUpError());
      this.signal.addEventListener('abort', onStop, { once: true });
      work.then(
        (value) => {
          this.signal.removeEventListener('abort', onStop);
          resolve(value);
        },
        (error: unknown) => {
          this.signal.removeEventListener('abort', onStop);
          reject(error);
        },
      );
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const unlink of this.unlinks) unlink();
  }
}
