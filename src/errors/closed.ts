import { LeaseError } from './lease-error.js';

/** What was closed: the object the caller made (an `EtcdPubSub` contains a lease provider the caller never sees). */
export type ClosedObject = 'EtcdLeaseProvider' | 'EtcdPubSub';

/** A method was called after `close()`. */
export class ProviderClosedError extends LeaseError {
  readonly code = 'ELEASE_CLOSED' as const;
  readonly retryable = false;

  constructor(
    operation: string,
    /** The object whose `close()` was called. */
    readonly closed: ClosedObject = 'EtcdLeaseProvider',
  ) {
    super(`${operation}: the ${closed} is closed`);
  }
}
