import { LeaseError } from './lease-error.js';

/** The caller's AbortSignal fired before the operation finished. */
export class LeaseAbortedError extends LeaseError {
  readonly code = 'ELEASE_ABORTED' as const;
  readonly retryable = false;

  constructor(operation: string, reason?: unknown) {
    super(`${operation}: aborted by the caller's signal`, { cause: reason });
  }
}
