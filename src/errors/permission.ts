import { LeaseError } from './lease-error.js';

/** The etcd user's role does not allow this operation on the provider's prefix. Never retried. */
export class EtcdPermissionError extends LeaseError {
  readonly code = 'ELEASE_PERMISSION' as const;
  readonly retryable = false;

  constructor(operation: string, prefix: string, cause: unknown) {
    super(
      `${operation}: etcd permission denied — the user's role needs readwrite on the prefix ${JSON.stringify(prefix)}`,
      { cause },
    );
  }
}
