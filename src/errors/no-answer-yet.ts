import { isLeaseError } from './lease-error.js';

/**
 * Whether a failed call only got no answer yet, so that a loop with a window of its own — a `hold()` handle renewing
 * within its belief window, a waiter within its timeout — should try again within that window rather than end.
 *
 * Beside the retryable errors, that is a call shed under overload (`ELEASE_OVERLOADED`: never sent, it says nothing
 * about the lease) and one refused under etcd's NOSPACE alarm (`ELEASE_NO_SPACE`: nothing written, and the alarm may be
 * cleared any moment). A plain call is not retried by the provider on those (a resend at once adds to the load it was
 * shed for), but a loop that pauses between tries is exactly the "retry on your own schedule" they ask for; ending
 * instead would turn one busy moment into a lost lease.
 */
export function noAnswerYet(error: unknown): boolean {
  if (!isLeaseError(error)) return false;
  return error.retryable || error.code === 'ELEASE_OVERLOADED' || error.code === 'ELEASE_NO_SPACE';
}
