import { LeaseError } from './lease-error.js';

/** etcd rejected the credentials (wrong user name or password, or an unusable token). Never retried. */
export class EtcdAuthenticationError extends LeaseError {
  readonly code = 'ELEASE_AUTH' as const;
  readonly retryable = false;

  constructor(operation: string, cause: unknown) {
    super(`${operation}: etcd authentication failed — check the user name and password`, { cause });
  }
}
