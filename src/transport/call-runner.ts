import { ExponentialBackoff, handleWhen, retry, type RetryPolicy } from 'cockatiel';
import { LeaseAbortedError } from '../errors/aborted.js';
import { isLeaseError } from '../errors/lease-error.js';
import { EtcdUnavailableError } from '../errors/unavailable.js';
import { classify } from './classify.js';

export interface CallBudget {
  /** Overall deadline of the call in ms from now, retries included. */
  deadlineMs: number;
  /** Any of these aborting ends the call (the caller's signal, the provider's lifetime). */
  signals?: readonly AbortSignal[];
}

export interface AttemptContext {
  /** gRPC deadline for this attempt: never past the call's overall deadline. */
  deadline: Date;
  /** 0 for the first attempt. */
  attempt: number;
  /** Fires when the whole call gives up (deadline or caller abort): abandon this attempt. */
  signal: AbortSignal;
}

/** Marks an error the retry policy must not retry; carries the typed error to rethrow. */
class Fatal extends Error {
  constructor(readonly error: Error) {
    super(error.message);
  }
}

/**
 * Runs one logical operation as a series of attempts: exponential backoff with jitter between them,
 * a per-attempt timeout shorter than the call's deadline (so one hung member costs one attempt),
 * all inside one overall deadline and the caller's AbortSignal.
 *
 * Why resending is safe: every operation is idempotent by construction (src/operations), so an
 * ambiguous failure — the write may have committed — is resolved by asking again, never by guessing.
 */
export class CallRunner {
  private readonly policy: RetryPolicy;

  constructor(
    private readonly attemptTimeoutMs: number,
    private readonly prefix: string,
  ) {
    this.policy = retry(
      handleWhen((e) => !(e instanceof Fatal)),
      // Decorrelated jitter (cockatiel's default generator) spreads retries of many clients after a leader loss.
      { maxAttempts: Number.MAX_SAFE_INTEGER, backoff: new ExponentialBackoff({ initialDelay: 10, maxDelay: 100 }) },
    ).dangerouslyUnref(); // a pending backoff must not keep a closing process alive
  }

  async run<T>(operation: string, budget: CallBudget, attempt: (ctx: AttemptContext) => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    // One controller per call, fired by a plain timer and by the budget's signals. Deliberately not
    // AbortSignal.timeout/any: a composite holds its timeout signal only weakly, and on Node 20 a
    // collected timeout signal never fires — the call would hang past its deadline. The timer is ref'd
    // on purpose: a pending call keeps the process alive until it settles (it is cleared at the end).
    const controller = new AbortController();
    const stop = controller.signal;
    const timer = setTimeout(() => controller.abort(), budget.deadlineMs);
    const links = (budget.signals ?? []).map((signal) => {
      const forward = () => controller.abort(signal.reason);
      if (signal.aborted) forward();
      else signal.addEventListener('abort', forward, { once: true });
      return () => signal.removeEventListener('abort', forward);
    });
    let attempts = 0;
    let lastError: unknown;

    const giveUp = (): Error => {
      const reason: unknown = stop.reason;
      const callerAborted = (budget.signals ?? []).some((s) => s.aborted);
      if (!callerAborted) return new EtcdUnavailableError(operation, attempts, performance.now() - startedAt, lastError);
      // A typed reason (e.g. ProviderClosedError from close()) is what the caller should see.
      return isLeaseError(reason) && reason instanceof Error ? reason : new LeaseAbortedError(operation, reason);
    };

    const execution = this.policy.execute(async ({ attempt: n }) => {
      if (stop.aborted) throw new Fatal(giveUp());
      attempts++;
      const remaining = budget.deadlineMs - (performance.now() - startedAt);
      const deadline = new Date(Date.now() + Math.max(1, Math.min(this.attemptTimeoutMs, remaining)));
      try {
        return await attempt({ deadline, attempt: n, signal: stop });
      } catch (error) {
        const verdict = classify(error, operation, this.prefix);
        if (verdict.kind === 'fatal') throw new Fatal(verdict.error);
        lastError = error;
        throw error;
      }
    }, stop);

    let onStop: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      onStop = () => reject(new Fatal(giveUp()));
      if (stop.aborted) onStop();
      else stop.addEventListener('abort', onStop, { once: true });
    });
    try {
      return await Promise.race([execution, stopped]);
    } catch (error) {
      if (error instanceof Fatal) throw error.error;
      throw error;
    } finally {
      clearTimeout(timer);
      for (const unlink of links) unlink();
      if (onStop) stop.removeEventListener('abort', onStop);
      execution.catch(() => {}); // the losing side of the race must not surface as an unhandled rejection
    }
  }
}
