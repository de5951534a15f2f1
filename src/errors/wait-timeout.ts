import { LeaseError } from './lease-error.js';

/**
 * `waitForLease` / `hold` gave up after the caller's `timeoutMs` without getting the lease.
 * Nothing is held on the caller's behalf: an acquire still in flight at that moment is released once it settles.
 */
export class LeaseWaitTimeoutError extends LeaseError {
  readonly code = 'ELEASE_TIMEOUT' as const;
  readonly retryable = false;

  constructor(
    operation: string,
    readonly timeoutMs: number,
  ) {
    super(`${operation}: the lease was not acquired within timeoutMs (${timeoutMs} ms)`);
  }
}
