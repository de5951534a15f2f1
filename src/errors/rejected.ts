import { LeaseError } from './lease-error.js';

/**
 * etcd refused the request as malformed or over a server limit (InvalidArgument, e.g. a request
 * larger than --max-request-bytes). Retrying the same request cannot help. Never retried.
 */
export class EtcdRequestRejectedError extends LeaseError {
  readonly code = 'ELEASE_INVALID_ARGUMENT' as const;
  readonly retryable = false;

  constructor(operation: string, cause: unknown) {
    super(`${operation}: etcd rejected the request${cause instanceof Error ? ` (${cause.message})` : ''}`, { cause });
  }
}
