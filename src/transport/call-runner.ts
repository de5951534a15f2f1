import { GRPCDeadlineExceededError } from 'etcd3';
import { AttemptTimeout } from './attempt-timeout.js';
import { CallScope, type CallBudget } from './call-scope.js';
import { classify } from './classify.js';
import { endpointFailuresOf, type EndpointFailures } from './endpoint-failures.js';
import { POLICY, retrySchedule } from './policy.js';

export type { CallBudget } from './call-scope.js';

export interface AttemptContext {
  /** This attempt's timeout: measured from when its request is sent (the group committer applies it at dispatch). */
  timeoutMs: number;
  /** `timeoutMs` from now, as a gRPC deadline, for requests sent at once. */
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
  private readonly schedule = retrySchedule((e) => !(e instanceof Fatal));
  /**
   * The client's per-endpoint record, learnt from the first failure that carries it (errors from a client
   * built by createEtcdClient do). Shared by all calls: a call that gave up while it waited on another (an
   * acquire on the grant of its lease) saw no failure of its own, yet its error must say why etcd failed.
   */
  private endpoints: EndpointFailures | undefined;

  constructor(
    attemptTimeoutMs: number,
    private readonly prefix: string,
    /** Largest attempt timeout a call may grow to (the provider's deadline). */
    private readonly maxAttemptMs: number = POLICY.deadlineMs,
  ) {
    this.timeouts = new AttemptTimeout(attemptTimeoutMs);
  }

  open(operation: string, budget: CallBudget): CallScope {
    return new CallScope(operation, budget, () => this.endpoints?.causes() ?? []);
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

  /** Attempts `attempt` until it succeeds, fails for good, or `scope` ends. */
  async attempts<T>(scope: CallScope, attempt: (ctx: AttemptContext) => Promise<T>): Promise<T> {
    let timedOut = 0;
    const execution = this.schedule.execute(async ({ attempt: n }) => {
      if (scope.signal.aborted) throw new Fatal(scope.giveUpError());
      scope.attempts++;
      const timeoutMs = Math.min(this.timeouts.forAttempt(timedOut, Number.POSITIVE_INFINITY), this.maxAttemptMs);
      try {
        return await attempt({ timeoutMs, deadline: new Date(Date.now() + timeoutMs), attempt: n, signal: scope.signal });
      } catch (error) {
        if (scope.signal.aborted) throw new Fatal(scope.giveUpError());
        const verdict = classify(error, scope.operation, this.prefix);
        if (verdict.kind === 'fatal') throw new Fatal(verdict.error);
        if (error instanceof GRPCDeadlineExceededError) timedOut++;
        this.endpoints ??= endpointFailuresOf(error);
        scope.lastError = error;
        throw error;
      }
    }, scope.signal);
    try {
      return await scope.race(execution);
    } catch (error) {
      if (error instanceof Fatal) throw error.error;
      throw error;
    } finally {
      execution.catch(() => {}); // the losing side of the race must not surface as an unhandled rejection
    }
  }
}
