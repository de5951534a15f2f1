import { ExponentialBackoff, handleWhen, retry, type RetryPolicy } from 'cockatiel';
import { LeaseAbortedError } from '../errors/aborted.js';
import { isLeaseError } from '../errors/lease-error.js';
import { EtcdUnavailableError } from '../errors/unavailable.js';
import { classify } from './classify.js';

export interface CallBudget {
  /** Overall deadline of the call in ms from now, retries included. */
  deadlineMs: number;
  /** Caller's cancellation. */
  signal?: AbortSignal;
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
    private readonly onLeaseLost: (error: unknown) => void = () => {},
  ) {
    this.policy = retry(
      handleWhen((e) => !(e instanceof Fatal)),
      // Decorrelated jitter (cockatiel's default generator) spreads retries of many clients after a leader loss.
      { maxAttempts: Number.MAX_SAFE_INTEGER, backoff: new ExponentialBackoff({ initialDelay: 10, maxDelay: 100 }) },
    ).dangerouslyUnref(); // a pending backoff must not keep a closing process alive
  }

  async run<T>(operation: string, budget: CallBudget, attempt: (ctx: AttemptContext) => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    const overall = AbortSignal.timeout(budget.deadlineMs);
    const stop = budget.signal ? AbortSignal.any([overall, budget.signal]) : overall;
    let attempts = 0;
    let lastError: unknown;

    const giveUp = (): Error => {
      if (!budget.signal?.aborted) return new EtcdUnavailableError(operation, attempts, performance.now() - startedAt, lastError);
      // A typed reason (e.g. ProviderClosedError from close()) is what the caller should see.
      const reason: unknown = budget.signal.reason;
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
        if (verdict.kind === 'lease-lost') this.onLeaseLost(error);
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
      if (onStop) stop.removeEventListener('abort', onStop);
      execution.catch(() => {}); // the losing side of the race must not surface as an unhandled rejection
    }
  }
}
