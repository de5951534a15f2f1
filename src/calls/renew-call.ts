import type { AttemptContext } from '../transport/call-runner.js';
import type { LeaseBackend } from './lease-backend.js';
import type { LeaseRequest } from './lease-request.js';
import { refreshHeld } from './refresh-held.js';

/**
 * One attempt of renewLease: true while `value` holds the key, which then lasts until sentAt + ttlMs at least.
 *
 * The renewal refreshes the version of the key this provider last wrote (refresh-held.ts): for a holder renewing on
 * time that is one transaction of two compares and a put. Only the first transaction may wait for company
 * (commit/renew-delay.ts): a later step follows a read the caller waits on. Every step is due by how soon the key's
 * current lease could end (LeaseBackend.renewSchedule).
 */
export function renewAttempt(backend: LeaseBackend, request: LeaseRequest, attempt: AttemptContext): Promise<boolean> {
  const { keyId, value, ttlMs } = request;
  const version = backend.tenures.versionOf(keyId, value);
  const schedule = (first: boolean) => backend.renewSchedule(keyId, value, ttlMs, attempt, first);
  return refreshHeld(backend, request, attempt, version, 'renewLease', schedule).then((answer) => {
    if (answer.kind === 'written') return true;
    backend.tenures.forget(keyId, value);
    return false;
  });
}
