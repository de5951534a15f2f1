import { LeaseError } from './lease-error.js';

/**
 * etcd refused the request as malformed or over a server limit (InvalidArgument, e.g. a request
 * larger than --max-request-bytes). Retrying the same request cannot help. Never retried.
 * Its own code, not ELEASE_INVALID_ARGUMENT: the arguments passed this package's checks and the
 * request was sent; the server's configuration refused it (the CLI reports it as a failed
 * operation, not a usage error).
 */
export class EtcdRequestRejectedError extends LeaseError {
  readonly code = 'ELEASE_REJECTED' as const;
  readonly retryable = false;

  constructor(operation: string, cause: unknown) {
    super(`${operation}: etcd rejected the request${cause instanceof Error ? ` (${cause.message})` : ''}`, { cause });
  }
}
