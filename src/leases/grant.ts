import type { Etcd3 } from 'etcd3';
import type { LeaseClock } from '../clock/lease-clock.js';
import type { LeaseLogger } from '../config/options.js';
import type { CallBudget, CallRunner } from '../transport/call-runner.js';
import { ETCD_RPC_ERROR, etcdDescription } from '../transport/etcd-rpc-error.js';
import { LeaseIdTaken } from './lease-pool.js';

export interface GrantContext {
  client: Etcd3;
  runner: CallRunner;
  clock: LeaseClock;
  logger: LeaseLogger;
  budget: () => CallBudget;
}

/**
 * One LeaseGrant of a pooled lease under the id the pool chose (leases/lease-id.ts), retried under the provider's
 * policy. etcd answers "lease already exists" when the id is known. The pool never asks for one id twice and every
 * id carries the provider's random tag, so that means an earlier attempt of this very grant committed and only its
 * answer was lost (a slow commit, or a cut link). It is checked rather than assumed: the lease must be alive and
 * granted for at least the TTL asked — it was then granted after this call was sent, so it lasts until
 * `notBefore`. Otherwise the id is reported as taken and the pool tries the next lower one.
 */
export async function grantPooledLease(context: GrantContext, ttlSeconds: number, id: string, notBefore: number): Promise<void> {
  const { client, runner, clock, logger } = context;
  try {
    const res = await runner.run('leaseGrant', context.budget(), ({ deadline }) => client.leaseClient.leaseGrant({ TTL: ttlSeconds, ID: id }, { deadline }));
    // A server never grants less than asked (it raises short TTLs to its minimum); a shorter grant would break notBefore.
    if (Number(res.TTL) < ttlSeconds) throw new Error(`etcd granted lease ${id} for ${res.TTL} s, less than the ${ttlSeconds} s asked`);
    logger.debug?.('granted pooled lease', { id, ttlSeconds: res.TTL });
  } catch (error) {
    if (etcdDescription(error) !== ETCD_RPC_ERROR.leaseExists) throw error;
    const ttl = await runner.run('leaseTimeToLive', context.budget(), ({ deadline }) => client.leaseClient.leaseTimeToLive({ ID: id }, { deadline }));
    if (Number(ttl.TTL) <= 0 || Number(ttl.grantedTTL) < ttlSeconds) throw new LeaseIdTaken(id);
    logger.debug?.('pooled lease was granted by an earlier attempt', { id, notBefore, at: clock.now() });
  }
}
