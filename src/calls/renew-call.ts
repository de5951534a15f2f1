import { POLICY } from '../transport/policy.js';
import type { AttemptContext } from '../transport/call-runner.js';
import type { AcquireRequest } from './acquire-call.js';
import { adoptForeign } from './adopt-foreign.js';
import { KeyChurnError } from './key-churn.js';
import type { LeaseBackend } from './lease-backend.js';

/** One attempt of renewLease: true while `value` holds the key, which then lasts until sentAt + ttlMs at least. */
export async function renewAttempt(backend: LeaseBackend, request: AcquireRequest, attempt: AttemptContext): Promise<boolean> {
  const { etcdKey, value, ttlMs, sentAt } = request;
  const keyId = etcdKey.toString('latin1');
  const need = sentAt + ttlMs;
  for (let step = 0; step < POLICY.maxStepsPerAttempt; step++) {
    const lease = await backend.leaseFor(ttlMs, sentAt, attempt);
    const txn = backend.ops.renew.txn(etcdKey, value, lease.id, backend.own);
    // Only the first step may wait for company: a later step follows a read the caller is already waiting on.
    const mayWaitMs = step === 0 ? backend.renewDelayMs(keyId, value, ttlMs, attempt) : 0;
    const outcome = backend.ops.renew.decode(await backend.commit(etcdKey, txn, attempt, lease, mayWaitMs), value);
    if (outcome.kind === 'not-held') {
      backend.tenures.forget(keyId, value);
      return false;
    }
    const revision =
      outcome.kind === 'written' ? outcome.revision : await adoptForeign(backend, etcdKey, value, outcome.kv, need, lease, attempt);
    if (revision !== undefined) {
      backend.remember(keyId, value, revision, need, outcome.kind === 'written' ? lease : undefined);
      return true;
    }
  }
  throw new KeyChurnError('renewLease');
}
