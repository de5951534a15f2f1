import { CircuitState, type CircuitBreakerPolicy, type IDefaultPolicyContext, type IPolicy } from 'cockatiel';

/**
 * The members' circuit breakers, as one set. A breaker exists to send the next attempt to another member; when
 * every member's breaker is open (or probing, half-open) there is no other member, and refusing the call outright
 * only turns a slow cluster into a failed call: a single endpoint whose commits became slower than the attempt
 * timeout, or three members that all forward to one slow leader, would answer nothing but "circuit open" for
 * a second at a time. So while no breaker is closed, calls go through to the member anyway (etcd3 picks which);
 * they are not counted, and a breaker closes again through its own half-open probe.
 */
export class MemberBreakers {
  private readonly breakers: CircuitBreakerPolicy[] = [];

  /** `breaker` joins the set; etcd3 gets the returned policy for that member. */
  add(breaker: CircuitBreakerPolicy): IPolicy<IDefaultPolicyContext> {
    this.breakers.push(breaker);
    return {
      _altReturn: undefined as never,
      onSuccess: breaker.onSuccess,
      onFailure: breaker.onFailure,
      execute: <T>(fn: (context: IDefaultPolicyContext) => PromiseLike<T> | T, signal?: AbortSignal): Promise<T> =>
        this.noneClosed() ? Promise.resolve().then(() => fn({ signal: signal ?? NEVER })) : breaker.execute(fn, signal),
    };
  }

  private noneClosed(): boolean {
    return this.breakers.every((b) => b.state !== CircuitState.Closed);
  }
}

const NEVER = new AbortController().signal;
