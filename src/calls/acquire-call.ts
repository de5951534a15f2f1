import { POLICY } from '../transport/policy.js';
import type { AttemptContext } from '../transport/call-runner.js';
import { adoptForeign } from './adopt-foreign.js';
import { KeyChurnError } from './key-churn.js';
import type { LeaseBackend } from './lease-backend.js';

/** One acquire, as the provider validated it. Times are LeaseClock ms. */
export interface AcquireRequest {
  readonly etcdKey: Buffer;
  /** Stored value: owner and metadata (keys/lease-value.ts). */
  readonly value: Buffer;
  readonly ttlMs: number;
  /** When the caller made the call: the lease must last until sentAt + ttlMs. */
  readonly sentAt: number;
}

export type AcquireAnswer = { acquired: true; revision: string } | { acquired: false; holder?: Buffer };

/** One attempt of acquireLease: take or refresh (operations/acquire.ts), settling a foreign lease if need be. */
export async function acquireAttempt(backend: LeaseBackend, request: AcquireRequest, attempt: AttemptContext): Promise<AcquireAnswer> {
  const { etcdKey, value, ttlMs, sentAt } = request;
  const need = sentAt + ttlMs;
  for (let step = 0; step < POLICY.maxStepsPerAttempt; step++) {
    const ready = backend.leaseFor(ttlMs, sentAt, attempt);
    const lease = ready instanceof Promise ? await ready : ready;
    const txn = backend.ops.acquire.txn(etcdKey, value, lease.id, backend.own);
    const outcome = backend.ops.acquire.decode(await backend.commit(etcdKey, txn, attempt, lease), value);
    if (outcome.kind === 'held') return outcome.holder === undefined ? { acquired: false } : { acquired: false, holder: outcome.holder.value };
    const revision =
      outcome.kind === 'written' ? outcome.revision : await adoptForeign(backend, etcdKey, value, outcome.kv, need, lease, attempt);
    if (revision !== undefined) {
      backend.remember(etcdKey.toString('latin1'), value, revision, need, outcome.kind === 'written' ? lease : undefined);
      return { acquired: true, revision };
    }
  }
  throw new KeyChurnError('acquireLease');
}
