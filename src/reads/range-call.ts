import type { Etcd3, IRangeRequest, IRangeResponse } from 'etcd3';
import type { CallBudget, CallRunner } from '../transport/call-runner.js';

/**
 * One Range request as a complete call: retried on transient failures inside its own deadline, failing with the
 * package's typed errors. Paged readers take one of these, so they can be tested without a cluster and used by
 * whoever owns a client and a runner (the CLI's store, EtcdPubSub's replay).
 */
export type RangeCall = (request: IRangeRequest, signal?: AbortSignal) => Promise<IRangeResponse>;

/**
 * A RangeCall through `client` and `runner`. `budget` gives each request its deadline (and may add signals, such
 * as a provider's lifetime); the caller's `signal` ends it early.
 */
export function etcdRangeCall(client: Etcd3, runner: CallRunner, operation: string, budget: (signal?: AbortSignal) => CallBudget): RangeCall {
  return (request, signal) => runner.read(operation, budget(signal), ({ deadline }) => client.kv.range(request, { deadline }));
}
