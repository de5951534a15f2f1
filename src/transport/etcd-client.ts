import { ConsecutiveBreaker, circuitBreaker, handleWhen, noop } from 'cockatiel';
import { Etcd3, isRecoverableError } from 'etcd3';
import type { EtcdLeaseProviderOptions } from '../options.js';

/**
 * Builds the etcd3 client the provider owns.
 *
 * etcd3's default global policy re-sends any "recoverable" failure three times at once — writes
 * included, even when the failure is ambiguous. We turn it off (`global: noop`) and retry in
 * CallRunner instead, where every resend is an idempotent operation under one deadline.
 * Per host we keep a circuit breaker: two consecutive transient failures (a dead or hung member)
 * stop traffic to that member for a second, so the next attempt goes to another endpoint.
 */
export function createEtcdClient(options: EtcdLeaseProviderOptions, hosts: string[]): Etcd3 {
  return new Etcd3({
    hosts,
    auth: options.auth,
    credentials: options.credentials,
    dialTimeout: options.attemptTimeoutMs ?? 1000,
    faultHandling: {
      global: noop,
      host: () =>
        circuitBreaker(handleWhen((e) => e instanceof Error && isRecoverableError(e)), {
          halfOpenAfter: 1000,
          breaker: new ConsecutiveBreaker(2),
        }),
    },
  });
}
