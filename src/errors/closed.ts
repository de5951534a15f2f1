import { LeaseError } from './lease-error.js';

/** A method was called after `close()`. */
export class ProviderClosedError extends LeaseError {
  readonly code = 'ELEASE_CLOSED' as const;
  readonly retryable = false;

  constructor(operation: string) {
    super(`${operation}: the EtcdLeaseProvider is closed`);
  }
}
