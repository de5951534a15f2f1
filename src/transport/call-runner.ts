import type { IBackoff } from 'cockatiel';
import { GRPCDeadlineExceededError } from 'etcd3';
import { AttemptTimeout } from './attempt-timeout.js';
import { CallScope, type CallBudget } from './call-scope.js';
import { classify } from './classify.js';
import { POLICY, retryBackoff } from './policy.js';
import type { StopSignal } from './stop-signal.js';

export type { CallBudget } from './call-scope.js';

export interface AttemptContext {
  /** This attempt's timeout: measured from when its request is sent (the group committer applies it at dispatch). */
  timeoutMs: number;
  /** `timeoutMs` from now, as a gRPC deadline, for requests sent at once. */
  deadline: Date;
  /** 0 for the first attempt. */
  attempt: number;
  /** Fires when the whole call gives up (deadline or caller abort): abandon this attempt. */
  signal: StopSignal;
}

/** Decorrelated-jitter backoff between the attempts of one call (policy.ts); each call walks its own sequence. */
const RETRY_BACKOFF = retryBackoff();

/**
 * Runs one logical operation as a series of attempts (policy.ts): jittered backoff between them, an adaptive
 * per-attempt timeout, all inside one CallScope (overall deadline and the caller's signal).
 *
 * An attempt's timeout is never cut short to fit the call's remaining budget: the scope ends the *call* on time,
 * while the request keeps its full timeout. So a gRPC DEADLINE_EXCEEDED always means a member took the full
 * attempt timeout — the only kind of timeout a member's circuit breaker should count — and a caller with a
 * 1 ms budget cannot open the breaker of a healthy member.
 *
 * Why resending is safe: every operation is idempotent by construction (src/operations), so an ambiguous failure —
 * the write may have committed — is resolved by asking again, never by guessing.
 */
export class CallRunner {
  readonly timeouts: AttemptTimeout;

  constructor(
    attemptTimeoutMs: number,
    private readonly prefix: string,
    /** Largest attempt timeout a call may grow to (the provider's deadline). */
    private readonly maxAttemptMs: number = POLICY.deadlineMs,
  ) {
    this.timeouts = new AttemptTimeout(attemptTimeoutMs);
  }

  open(operation: string, budget: CallBudget): CallScope {
    return new CallScope(operation, budget);
  }

  /**
   * One call sent straight to etcd (no group commit): a scope of its own around `attempts`, each answered attempt's
   * latency feeding the adaptive timeout. (Group-committed calls are measured by the committer, per transaction.)
   */
  async run<T>(operation: string, budget: CallBudget, attempt: (ctx: AttemptContext) => Promise<T>): Promise<T> {
    const scope = this.open(operation, budget);
    try {
      return await this.attempts(scope, async (ctx) => {
        const sentAt = performance.now();
        const result = await attempt(ctx);
        this.timeouts.observe(performance.now() - sentAt);
        return result;
      });
    } finally {
      scope.dispose();
    }
  }

  /**
   * Attempts `attempt` until it succeeds, fails for good, or `scope` ends; jittered backoff between attempts.
   * `settlesOnStop`: every attempt rejects on its own as soon as its signal fires (see LeaseBackend). A plain
   * loop rather than cockatiel's retry policy: that one derives an AbortController per execution and emits events per
   * attempt, a large share of a group-committed call's client CPU. The schedule is the same (policy.ts).
   */
  async attempts<T>(scope: CallScope, attempt: (ctx: AttemptContext) => Promise<T>, settlesOnStop = false): Promise<T> {
    let timedOut = 0;
    let backoff: IBackoff<unknown> | undefined;
    for (let n = 0; ; n++) {
      if (scope.aborted) throw scope.giveUpError();
      scope.attempts++;
      const timeoutMs = Math.min(this.timeouts.forAttempt(timedOut, Number.POSITIVE_INFINITY), this.maxAttemptMs);
      try {
        const work = attempt({ timeoutMs, deadline: new Date(Date.now() + timeoutMs), attempt: n, signal: scope });
        // Raced with the scope: an attempt still waiting when the call ends is abandoned (its answer ignored). An
        // attempt that itself settles as soon as its signal fires (`settlesOnStop`) needs no race.
        return await (settlesOnStop ? work : scope.race(work));
      } catch (error) {
        if (scope.aborted) throw scope.giveUpError();
        const verdict = classify(error, scope.operation, this.prefix);
        if (verdict.kind === 'fatal') throw verdict.error;
        if (error instanceof GRPCDeadlineExceededError) timedOut++;
        scope.lastError = error;
      }
      backoff = (backoff ?? RETRY_BACKOFF).next(undefined);
      await scope.sleep(backoff.duration);
    }
  }
}
