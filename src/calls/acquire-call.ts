import type { PooledLease } from '../leases/lease-choice.js';
import type { AttemptContext } from '../transport/call-runner.js';
import { POLICY } from '../policy.js';
import { KeyChurnError } from './key-churn.js';
import type { LeaseBackend } from './lease-backend.js';
import type { LeaseRequest } from './lease-request.js';
import { refreshHeld } from './refresh-held.js';

type AcquireAnswer = { acquired: true; revision: string } | { acquired: false; holder?: Buffer };

/**
 * One attempt of acquireLease: take the key if it is free, else learn its holder (operations/acquire.ts); if that is
 * the caller's own value, refresh the version it read (refresh-held.ts).
 *
 * The common case — a pooled lease fits, one transaction answers "written" or "held" — runs as promise callbacks,
 * not as an async function: this runs for every acquire, and an async function's frame was the largest single
 * allocation of the hot path. Waiting for a grant, or a key that vanished between the read and the refresh,
 * continues in `acquireSteps`.
 */
export function acquireAttempt(backend: LeaseBackend, request: LeaseRequest, attempt: AttemptContext): Promise<AcquireAnswer> {
  const lease = backend.leaseFor(request.ttlMs, request.sent, attempt);
  // Waiting for a grant: once it is there (or the call ended), the steps start over and find it in the pool.
  if (lease instanceof Promise) return lease.then(() => acquireSteps(backend, request, attempt, 0));
  return acquireStep(backend, request, attempt, lease).then((answer) => answer ?? acquireSteps(backend, request, attempt, 1));
}

async function acquireSteps(backend: LeaseBackend, request: LeaseRequest, attempt: AttemptContext, firstStep: number): Promise<AcquireAnswer> {
  for (let step = firstStep; step < POLICY.maxStepsPerAttempt; step++) {
    const answer = await acquireStep(backend, request, attempt, await backend.leaseFor(request.ttlMs, request.sent, attempt));
    if (answer !== undefined) return answer;
  }
  throw new KeyChurnError('acquireLease');
}

/** One acquire transaction on `lease`, and the refresh of our own version if it read one; undefined: the key vanished in between. */
function acquireStep(backend: LeaseBackend, request: LeaseRequest, attempt: AttemptContext, lease: PooledLease): Promise<AcquireAnswer | undefined> {
  const { etcdKey, keyId, value } = request;
  const txn = backend.ops.acquire.txn(etcdKey, value, lease.id);
  return backend.commit(etcdKey, txn, attempt, lease, undefined, keyId).then((answer): AcquireAnswer | Promise<AcquireAnswer | undefined> => {
    const outcome = backend.ops.acquire.decode(answer, value);
    if (outcome.kind === 'written') {
      backend.remember(keyId, value, outcome.revision, request.sent.at + request.ttlMs, lease, lease.id);
      return { acquired: true, revision: outcome.revision };
    }
    if (outcome.kind === 'held') return outcome.holder === undefined ? { acquired: false } : { acquired: false, holder: outcome.holder.value };
    const version = { revision: outcome.kv.mod_revision, lease: outcome.kv.lease };
    return refreshHeld(backend, request, attempt, version, 'acquireLease').then((refreshed) => {
      if (refreshed.kind === 'written') return { acquired: true, revision: refreshed.revision };
      // Someone took it since the read: that holder, read in the refresh's own transaction. Gone: start over.
      return refreshed.kv === undefined ? undefined : { acquired: false, holder: refreshed.kv.value };
    });
  });
}
