import type { PooledLease } from '../leases/lease-choice.js';
import { decodeAdopt, keepLeaseTxn, moveLeaseTxn } from '../operations/adopt-lease.js';
import type { KeyValue } from '../operations/etcd-txn.js';
import type { AttemptContext } from '../transport/call-runner.js';
import type { LeaseBackend } from './lease-backend.js';

/**
 * `value` holds the key, but on a lease this provider did not mint (another provider instance using the same
 * owner string, or an older version of this package): its id says nothing about when it ends, so ask etcd.
 *
 * - The lease still runs at least until `need` (the server's remaining TTL, counted from before we asked): keep the
 *   key on it. Moving it to ours could shorten what the other writer was promised.
 * - It ends sooner (or the key has no lease): move the key to `lease`, which lasts until `need`. That never
 *   shortens the other writer's promise either: whatever it was promised ended before `need` at the latest.
 *
 * The write is pinned to the version of the key that was read; returns its revision, or undefined if the key
 * changed in between (the caller starts over).
 */
export async function adoptForeign(
  backend: LeaseBackend,
  etcdKey: Buffer,
  value: Buffer,
  kv: KeyValue,
  need: number,
  lease: PooledLease,
  attempt: AttemptContext,
): Promise<string | undefined> {
  let keep = false;
  if (kv.lease !== '0') {
    const askedAt = backend.clock.now();
    keep = askedAt + (await backend.remainingTtlMs(kv.lease, attempt)) >= need;
  }
  const txn = keep ? keepLeaseTxn(etcdKey, value, kv.mod_revision, kv.lease) : moveLeaseTxn(etcdKey, value, kv.mod_revision, lease.id);
  return decodeAdopt(await backend.commit(etcdKey, txn, attempt, keep ? undefined : lease));
}
