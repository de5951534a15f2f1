import { BrokenCircuitError, noop, type IDefaultPolicyContext, type IPolicy } from 'cockatiel';
import type { EndpointFailures } from './endpoint-failures.js';
import type { LeaderFinder } from './leader-finder.js';
import type { MemberHealth } from './member-health.js';
import type { MemberProbes } from './member-probes.js';

interface MemberGateParts {
  readonly health: MemberHealth;
  readonly probes: Pick<MemberProbes, 'runDue'>;
  readonly failures: EndpointFailures;
  readonly leader: Pick<LeaderFinder, 'observed'>;
  /** Whether an error is a failure of the member (else it answered). */
  readonly countsAsFailure: (error: unknown) => boolean;
}

/**
 * etcd3's per-host policy slot, for member `index`. etcd3 walks its hosts in a random order for every request and
 * sends it to the first whose policy runs it; a policy that refuses without running it passes the request on to the
 * next host. So refusing every member that ranks below the best (member-health.ts) puts the choice of member in
 * MemberHealth's hands, while etcd3 keeps its connections, its authentication and its streams.
 *
 * What the gate sees of a request it lets through:
 * - a unary call (its function returns a promise): sent now, then answered or failed — what MemberHealth and
 *   EndpointFailures learn from, and the answer's Raft term, which tells LeaderFinder when to look for the leader;
 * - a stream being opened (watch, lease keep-alive; the function returns the stream itself): nothing yet. Opening
 *   a stream on a hung member succeeds, so it is no sign of health and never closes a circuit;
 * - a stream's later error, which etcd3 reports by running a function that throws it (`markFailed`): a member
 *   failure when it is one.
 */
export class MemberGate implements IPolicy<IDefaultPolicyContext> {
  declare readonly _altReturn: never;
  readonly onSuccess = noop.onSuccess;
  readonly onFailure = noop.onFailure;

  constructor(
    private readonly index: number,
    readonly endpoint: string,
    private readonly parts: MemberGateParts,
  ) {}

  execute<T>(fn: (context: IDefaultPolicyContext) => PromiseLike<T> | T, signal?: AbortSignal): Promise<T> {
    const { health, probes } = this.parts;
    const now = performance.now();
    probes.runDue(now);
    if (!health.admits(this.index, now)) {
      return Promise.reject(new BrokenCircuitError(`etcd member ${this.endpoint} passed over: its circuit is ${health.state(this.index)} and another member is answering`));
    }
    let result: PromiseLike<T> | T;
    try {
      result = fn({ signal: signal ?? NEVER });
    } catch (error) {
      if (this.parts.countsAsFailure(error)) {
        this.parts.failures.failed(this.endpoint, error);
        health.streamFailed(this.index, performance.now());
      }
      return Promise.reject(error);
    }
    if (!isThenable(result)) return Promise.resolve(result);
    health.sent(this.index, now);
    return Promise.resolve(result).then(
      (value) => {
        this.answered();
        // Each answer names its member's Raft term: a newer one means an election, and the leader is asked for again.
        this.parts.leader.observed((value as { header?: { raft_term?: string } } | null)?.header?.raft_term, performance.now());
        return value;
      },
      (error: unknown) => {
        if (this.parts.countsAsFailure(error)) {
          this.parts.failures.failed(this.endpoint, error);
          health.failed(this.index, performance.now());
        } else {
          this.answered();
        }
        throw error;
      },
    );
  }

  private answered(): void {
    this.parts.failures.answered(this.endpoint);
    this.parts.health.answered(this.index, performance.now());
  }
}

function isThenable<T>(value: PromiseLike<T> | T): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

const NEVER = new AbortController().signal;
