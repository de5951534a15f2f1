import { ExponentialBackoff, type IBackoff } from 'cockatiel';
import { GRPCDeadlineExceededError } from 'etcd3';
import { AttemptTimeout } from './attempt-timeout.js';
import { CallScope, type CallBudget } from './call-scope.js';
import { classify } from './classify.js';
import { endpointFailuresOf, type EndpointFailures } from './endpoint-failures.js';
import { POLICY } from '../policy.js';
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

/**
 * The waits between the attempts of one call: decorrelated jitter (cockatiel's default generator) between the bounds
 * of POLICY.backoff; each call walks its own sequence. Attempts are unbounded: the call's deadline ends them.
 */
const RETRY_BACKOFF = new ExponentialBackoff({ initialDelay: POLICY.backoff.initialDelayMs, maxDelay: POLICY.backoff.maxDelayMs });

/**
 * Runs one logical operation as a series of attempts (src/policy.ts): jittered backoff between them, an adaptive
 * per-attempt timeout, all inside one CallScope (overall deadline and the caller's signal).
 *
 * An attempt's timeout is never cut short to fit the call's remaining budget: the scope ends the *call* on time,
 * while the request keeps its full timeout. So a gRPC DEADLINE_EXCEEDED always means a member took the full
 * attempt timeout — the only kind of timeout a member's circuit should count (member-health.ts) — and a caller
 * with a 1 ms budget cannot open the circuit of a healthy member.
 *
 * Why resending is safe: every operation is idempotent by construction (src/operations), so an ambiguous failure —
 * the write may have committed — is resolved by asking again, never by guessing.
 */
export class CallRunner {
  /**
   * The attempt timeout of writes — everything that commits through Raft — learnt from their answers: what the
   * group committer and every `attempts` call use, and what a lease's safety margins count on.
   */
  readonly timeouts: AttemptTimeout;
  /**
   * Reads sent through `read`, learning from their own answers only. A read is answered without a commit (a lease's
   * TTL on the leader's own state, a serializable range), often far sooner than a write: on a cluster whose commits
   * are slow, one fast read answer fed to the writes' estimate reset it to the floor, and the next writes timed out
   * again before they could commit (followers 400 ms away: grant, TTL read, then every batch's first attempt).
   */
  readonly readTimeouts: AttemptTimeout;
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
    this.readTimeouts = new AttemptTimeout(attemptTimeoutMs);
  }

  open(operation: string, budget: CallBudget): CallScope {
    return new CallScope(operation, budget, () => this.endpoints?.causes() ?? []);
  }

  /**
   * One write sent straight to etcd (no group commit: a lease grant, a revoke): a scope of its own around
   * `attempts`, each answered attempt's latency feeding the writes' timeout. (Group-committed calls are measured by
   * the committer, per transaction.)
   */
  run<T>(operation: string, budget: CallBudget, attempt: (ctx: AttemptContext) => Promise<T>): Promise<T> {
    return this.once(operation, budget, attempt, this.timeouts);
  }

  /** One read, as `run`, timed by and teaching the reads' timeout only. */
  read<T>(operation: string, budget: CallBudget, attempt: (ctx: AttemptContext) => Promise<T>): Promise<T> {
    return this.once(operation, budget, attempt, this.readTimeouts);
  }

  private async once<T>(operation: string, budget: CallBudget, attempt: (ctx: AttemptContext) => Promise<T>, timeouts: AttemptTimeout): Promise<T> {
    const scope = this.open(operation, budget);
    try {
      return await this.attempts(
        scope,
        async (ctx) => {
          const sentAt = performance.now();
          const result = await attempt(ctx);
          timeouts.observe(performance.now() - sentAt);
          return result;
        },
        false,
        timeouts,
      );
    } finally {
      scope.dispose();
    }
  }

  /**
   * Attempts `attempt` until it succeeds, fails for good, or `scope` ends; jittered backoff between attempts.
   * `settlesOnStop`: every attempt rejects on its own as soon as its signal fires (see LeaseBackend). A plain
   * loop rather than cockatiel's retry policy: that one derives an AbortController per execution and emits events per
   * attempt, a large share of a group-committed call's client CPU. The schedule is the same (src/policy.ts).
   *
   * Not an async function: the first attempt runs as a promise chain, and only a failed one enters the loop
   * (`retry`) — most calls succeed at once, and an async frame per call was a visible share of the hot path.
   * `timeouts`: the estimate that times the attempts and grows on their timeouts — the writes' unless a read says so
   * (`readTimeouts`). This method feeds it no answers: the caller measures what it sends (the committer, `run`).
   */
  attempts<T>(scope: CallScope, attempt: (ctx: AttemptContext) => Promise<T>, settlesOnStop = false, timeouts = this.timeouts): Promise<T> {
    if (scope.aborted) return Promise.reject(scope.giveUpError());
    const first = this.start(scope, attempt, 0, 0, settlesOnStop, timeouts);
    return first.then(undefined, (error: unknown) => this.retry(scope, attempt, settlesOnStop, error, timeouts));
  }

  /** One attempt, raced with the scope unless it settles on its own when the scope ends. */
  private start<T>(
    scope: CallScope,
    attempt: (ctx: AttemptContext) => Promise<T>,
    n: number,
    timedOut: number,
    settlesOnStop: boolean,
    timeouts: AttemptTimeout,
  ): Promise<T> {
    scope.attempts++;
    const timeoutMs = Math.min(timeouts.forAttempt(timedOut, Number.POSITIVE_INFINITY), this.maxAttemptMs);
    scope.lastTimeoutMs = timeoutMs;
    let work: Promise<T>;
    try {
      work = attempt({ timeoutMs, deadline: new Date(Date.now() + timeoutMs), attempt: n, signal: scope });
    } catch (error) {
      work = Promise.reject(error);
    }
    // An attempt still waiting when the call ends is abandoned (its answer ignored).
    return settlesOnStop ? work : scope.race(work);
  }

  /** After attempt 0 failed with `error`: the verdict, then backoff and further attempts until one succeeds. */
  private async retry<T>(
    scope: CallScope,
    attempt: (ctx: AttemptContext) => Promise<T>,
    settlesOnStop: boolean,
    error: unknown,
    timeouts: AttemptTimeout,
  ): Promise<T> {
    let timedOut = 0;
    let backoff: IBackoff<unknown> | undefined;
    for (let n = 1; ; n++) {
      if (scope.aborted) throw scope.giveUpError();
      const verdict = classify(error, scope.operation, this.prefix);
      if (verdict.kind === 'fatal') throw verdict.error;
      if (error instanceof GRPCDeadlineExceededError) {
        timedOut++;
        timeouts.timedOut(scope.lastTimeoutMs);
      }
      this.endpoints ??= endpointFailuresOf(error);
      scope.lastError = error;
      backoff = (backoff ?? RETRY_BACKOFF).next(undefined);
      await scope.sleep(backoff.duration);
      if (scope.aborted) throw scope.giveUpError();
      try {
        return await this.start(scope, attempt, n, timedOut, settlesOnStop, timeouts);
      } catch (failed) {
        error = failed;
      }
    }
  }
}
