import { POLICY } from '../policy.js';
import type { AttemptContext } from '../transport/call-runner.js';
import type { PooledLease } from '../leases/lease-choice.js';
import type { AcquireOutcome } from '../operations/acquire.js';
import { adoptForeign } from './adopt-foreign.js';
import { KeyChurnError } from './key-churn.js';
import type { LeaseBackend } from './lease-backend.js';
import type { LeaseRequest } from './lease-request.js';

type AcquireAnswer = { acquired: true; revision: string } | { acquired: false; holder?: Buffer };

/**
 * One attempt of acquireLease: take or refresh (operations/acquire.ts), settling a foreign lease if need be.
 *
 * The common case — a pooled lease fits, one transaction answers "written" or "held" — runs as promise callbacks,
 * not as an async function: this runs for every acquire, and an async function's frame was the largest single
 * allocation of the hot path. Anything else (waiting for a grant, a foreign lease, a key that changed) continues in
 * `acquireSteps`.
 */
export function acquireAttempt(backend: LeaseBackend, request: LeaseRequest, attempt: AttemptContext): Promise<AcquireAnswer> {
  const lease = backend.leaseFor(request.ttlMs, request.sentAt, attempt);
  // Waiting for a grant: once it is there (or the call ended), the steps start over and find it in the pool.
  if (lease instanceof Promise) return lease.then(() => acquireSteps(backend, request, attempt));
  const txn = backend.ops.acquire.txn(request.etcdKey, request.value, lease.id, backend.own);
  return backend.commit(request.etcdKey, txn, attempt, lease).then((answer) => {
    const outcome = backend.ops.acquire.decode(answer, request.value);
    if (outcome.kind === 'foreign') return acquireSteps(backend, request, attempt, { outcome, lease });
    return settled(backend, request, outcome, lease);
  });
}

/** The steps of an attempt, from the top or after a first transaction's `outcome` on `lease`. */
async function acquireSteps(
  backend: LeaseBackend,
  request: LeaseRequest,
  attempt: AttemptContext,
  first?: { outcome: AcquireOutcome; lease: PooledLease },
): Promise<AcquireAnswer> {
  const { etcdKey, value, ttlMs, sentAt } = request;
  const need = sentAt + ttlMs;
  for (let step = 0; step < POLICY.maxStepsPerAttempt; step++) {
    let outcome: AcquireOutcome;
    let lease: PooledLease;
    if (step === 0 && first) {
      ({ outcome, lease } = first); // step 0 already ran in acquireAttempt
    } else {
      lease = await backend.leaseFor(ttlMs, sentAt, attempt);
      const txn = backend.ops.acquire.txn(etcdKey, value, lease.id, backend.own);
      outcome = backend.ops.acquire.decode(await backend.commit(etcdKey, txn, attempt, lease), value);
    }
    if (outcome.kind !== 'foreign') return settled(backend, request, outcome, lease);
    const revision = await adoptForeign(backend, etcdKey, value, outcome.kv, need, lease, attempt);
    if (revision !== undefined) {
      backend.remember(etcdKey.toString('latin1'), value, revision, need, undefined);
      return { acquired: true, revision };
    }
  }
  throw new KeyChurnError('acquireLease');
}

/** The answer of a transaction that wrote the key on `lease`, or found another holder. */
function settled(backend: LeaseBackend, request: LeaseRequest, outcome: Exclude<AcquireOutcome, { kind: 'foreign' }>, lease: PooledLease): AcquireAnswer {
  if (outcome.kind === 'held') return outcome.holder === undefined ? { acquired: false } : { acquired: false, holder: outcome.holder.value };
  backend.remember(request.etcdKey.toString('latin1'), request.value, outcome.revision, request.sentAt + request.ttlMs, lease);
  return { acquired: true, revision: outcome.revision };
}
