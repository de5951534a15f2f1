import { POLICY } from '../policy.js';
import type { AttemptContext } from '../transport/call-runner.js';
import type { PooledLease } from '../leases/lease-choice.js';
import type { RefreshOutcome } from '../operations/refresh-own.js';
import { adoptForeign } from './adopt-foreign.js';
import { KeyChurnError } from './key-churn.js';
import type { LeaseBackend } from './lease-backend.js';
import type { LeaseRequest } from './lease-request.js';

/**
 * One attempt of renewLease: true while `value` holds the key, which then lasts until sentAt + ttlMs at least.
 *
 * As for acquires (acquire-call.ts), the common case — a pooled lease fits, one transaction answers — runs as
 * promise callbacks; a grant wait, a foreign lease or a key that changed continue in `renewSteps`. Only the first
 * transaction may wait for company (commit/renew-delay.ts): a later step follows a read the caller waits on. Every
 * step is due by how soon the key's current lease could end (LeaseBackend.renewSchedule).
 */
export function renewAttempt(backend: LeaseBackend, request: LeaseRequest, attempt: AttemptContext): Promise<boolean> {
  const lease = backend.leaseFor(request.ttlMs, request.sentAt, attempt);
  // Waiting for a grant: once it is there (or the call ended), the steps start over and find it in the pool.
  if (lease instanceof Promise) return lease.then(() => renewSteps(backend, request, attempt));
  const keyId = request.etcdKey.toString('latin1');
  const txn = backend.ops.renew.txn(request.etcdKey, request.value, lease.id, backend.own);
  const how = backend.renewSchedule(keyId, request.value, request.ttlMs, attempt, true);
  return backend.commit(request.etcdKey, txn, attempt, lease, how).then((answer) => {
    const outcome = backend.ops.renew.decode(answer, request.value);
    if (outcome.kind === 'foreign') return renewSteps(backend, request, attempt, { outcome, lease });
    return settled(backend, request, keyId, outcome, lease);
  });
}

/** The steps of an attempt, from the top or after a first transaction's `outcome` on `lease`. */
async function renewSteps(backend: LeaseBackend, request: LeaseRequest, attempt: AttemptContext, first?: { outcome: RefreshOutcome; lease: PooledLease }): Promise<boolean> {
  const { etcdKey, value, ttlMs, sentAt } = request;
  const keyId = etcdKey.toString('latin1');
  const need = sentAt + ttlMs;
  for (let step = 0; step < POLICY.maxStepsPerAttempt; step++) {
    let outcome: RefreshOutcome;
    let lease: PooledLease;
    if (step === 0 && first) {
      ({ outcome, lease } = first); // step 0 already ran in renewAttempt
    } else {
      lease = await backend.leaseFor(ttlMs, sentAt, attempt);
      const txn = backend.ops.renew.txn(etcdKey, value, lease.id, backend.own);
      const how = backend.renewSchedule(keyId, value, ttlMs, attempt, step === 0);
      outcome = backend.ops.renew.decode(await backend.commit(etcdKey, txn, attempt, lease, how), value);
    }
    if (outcome.kind !== 'foreign') return settled(backend, request, keyId, outcome, lease);
    const revision = await adoptForeign(backend, etcdKey, value, outcome.kv, need, lease, attempt);
    if (revision !== undefined) {
      backend.remember(keyId, value, revision, need, undefined);
      return true;
    }
  }
  throw new KeyChurnError('renewLease');
}

/** The answer of a transaction that refreshed the key on `lease`, or found it no longer held. */
function settled(backend: LeaseBackend, request: LeaseRequest, keyId: string, outcome: Exclude<RefreshOutcome, { kind: 'foreign' }>, lease: PooledLease): boolean {
  if (outcome.kind === 'not-held') {
    backend.tenures.forget(keyId, request.value);
    return false;
  }
  backend.remember(keyId, request.value, outcome.revision, request.sentAt + request.ttlMs, lease);
  return true;
}
