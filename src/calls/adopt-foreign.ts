import { LeaseTtlUnknownError } from '../errors/ttl-unknown.js';
import { later, reaches, type PooledLease, type Reach } from '../leases/lease-choice.js';
import { endsNotBefore, reliedOnUntil } from '../leases/lease-ttl.js';
import { decodeAdopt, keepLeaseTxn, moveLeaseTxn } from '../operations/adopt-lease.js';
import type { KeyValue } from '../operations/etcd-txn.js';
import type { AttemptContext } from '../transport/call-runner.js';
import type { LeaseBackend } from './lease-backend.js';

/**
 * `value` holds the key, but on a lease this provider did not mint (another provider instance using the same
 * owner string, or an older version of this package): its id says nothing about when it ends, so ask etcd. etcd's
 * answer is whole seconds, truncated, computed at some moment between our question and its answer; each choice
 * below reads it in the direction that is safe for that choice (leases/lease-ttl.ts):
 *
 * - Keep the key on it when it lasts until `need` even by the *low* reading (the truncated TTL from when we asked).
 *   Reading it high instead could keep the key on a lease that ends up to a second before our caller's window.
 * - Else move the key to a lease of ours that lasts until `need` and past the *high* reading (one more second,
 *   from when the answer came): whatever the other writer was promised on the foreign lease ended before then.
 *   Moving it to a lease that lasts only until `need` could shorten that promise by up to a second.
 * - An answer etcd cannot have (a just-elected leader's placeholder) proves nothing either way: keeping could
 *   outlast the lease, moving could shorten the other writer's promise. The attempt fails (retryable) and the call
 *   asks again.
 *
 * The write is pinned to the version of the key that was read; returns its revision and the lease the key is on
 * now, or undefined if the key changed in between (the caller starts over).
 */
export async function adoptForeign(
  backend: LeaseBackend,
  etcdKey: Buffer,
  value: Buffer,
  kv: Pick<KeyValue, 'mod_revision' | 'lease'>,
  need: Reach,
  lease: PooledLease,
  attempt: AttemptContext,
): Promise<Adopted | undefined> {
  let target = lease;
  if (kv.lease !== '0') {
    const answer = await backend.timeToLive(kv.lease, attempt);
    const lastsUntil = endsNotBefore(answer);
    if (lastsUntil !== undefined && reaches(lastsUntil, need)) {
      const revision = decodeAdopt(await backend.commit(etcdKey, keepLeaseTxn(etcdKey, value, kv.mod_revision, kv.lease), attempt));
      return revision === undefined ? undefined : { revision, leaseId: kv.lease };
    }
    const relied = reliedOnUntil(answer);
    if (relied === undefined) throw new LeaseTtlUnknownError(kv.lease, answer.ttlSeconds, answer.grantedSeconds);
    if (!reaches(target, relied)) target = await backend.leaseReaching(later(need, relied), attempt);
  }
  const revision = decodeAdopt(await backend.commit(etcdKey, moveLeaseTxn(etcdKey, value, kv.mod_revision, target.id), attempt, target));
  return revision === undefined ? undefined : { revision, leaseId: target.id, onLease: target };
}

/** A key adopted from a foreign lease: the write's revision, the lease the key is on now (one of ours if it moved). */
export interface Adopted {
  revision: string;
  leaseId: string;
  onLease?: PooledLease;
}
