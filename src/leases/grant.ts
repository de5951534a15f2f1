import type { Etcd3 } from 'etcd3';
import type { LeaseClock } from '../clock/lease-clock.js';
import type { LeaseLogger } from '../config/options.js';
import { LeaseIdTakenError } from '../errors/lease-id-taken.js';
import type { CallBudget, CallRunner } from '../transport/call-runner.js';
import { ETCD_RPC_ERROR, etcdDescription } from '../transport/etcd-rpc-error.js';
import { reaches, type Reach } from './lease-choice.js';
import { endsNotBefore } from './lease-ttl.js';

interface GrantContext {
  client: Etcd3;
  runner: CallRunner;
  clock: LeaseClock;
  logger: LeaseLogger;
  budget: () => CallBudget;
}

/**
 * One LeaseGrant of a pooled lease under the id the pool chose (leases/lease-id.ts), retried under the provider's
 * policy. etcd answers "lease already exists" when it knows the id. The pool never asks for one id twice, but
 * another holder of the id can exist: a provider that drew the same tag, whose clock runs ahead of ours, mints the
 * same id seconds earlier in real time, for a lease that ends that much sooner than the id says to us.
 * - On the grant's first attempt the answer therefore means taken: nothing of ours can have created it.
 * - On a retry it may mean that an earlier attempt committed and only its answer was lost (a slow commit, a cut
 *   link). The lease is adopted only if etcd's remaining TTL, counted from when that question was sent and
 *   truncated as etcd truncates it, reaches what the pool `claims` of it; then it lasts that long, whoever granted it.
 * Otherwise the id is reported as taken (`LeaseIdTakenError`) and the pool tries another one.
 */
export async function grantPooledLease(context: GrantContext, ttlSeconds: number, id: string, claims: Reach): Promise<void> {
  const { client, runner, clock, logger } = context;
  let attempt = 0;
  try {
    const res = await runner.run('leaseGrant', context.budget(), (ctx) => {
      attempt = ctx.attempt;
      return client.leaseClient.leaseGrant({ TTL: ttlSeconds, ID: id }, { deadline: ctx.deadline });
    });
    // A server never grants less than asked (it raises short TTLs to its minimum); a shorter grant would break notBefore.
    if (Number(res.TTL) < ttlSeconds) throw new LeaseIdTakenError(id, `etcd granted it for ${res.TTL} s, less than the ${ttlSeconds} s asked`);
    logger.debug?.('granted pooled lease', { id, ttlSeconds: res.TTL });
  } catch (error) {
    if (etcdDescription(error) !== ETCD_RPC_ERROR.leaseExists) throw error;
    if (attempt === 0) throw new LeaseIdTakenError(id, 'etcd already knows it, and no earlier attempt of this grant was sent');
    const asked = clock.moment();
    const ttl = await runner.read('leaseTimeToLive', context.budget(), ({ deadline }) => client.leaseClient.leaseTimeToLive({ ID: id }, { deadline }));
    const answer = { ttlSeconds: Number(ttl.TTL), grantedSeconds: Number(ttl.grantedTTL), asked, answered: clock.moment() };
    const lastsUntil = endsNotBefore(answer);
    if (lastsUntil === undefined || !reaches(lastsUntil, claims)) {
      throw new LeaseIdTakenError(id, `the lease under it cannot be shown to last as long as the id says (etcd: ${ttl.TTL} s left of ${ttl.grantedTTL} s)`);
    }
    logger.debug?.('pooled lease was granted by an earlier attempt', { id, claims, lastsUntil });
  }
}
