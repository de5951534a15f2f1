import { LeaseError } from './lease-error.js';

/**
 * etcd could not be reached, or had no quorum, for the whole deadline of a call.
 * The operation may or may not have taken effect on the server: treat the lease
 * as *not* held by this call (it never reports success it did not observe).
 */
export class EtcdUnavailableError extends LeaseError {
  readonly code = 'ELEASE_UNAVAILABLE' as const;
  readonly retryable = true;

  constructor(
    readonly operation: string,
    readonly attempts: number,
    readonly elapsedMs: number,
    cause: unknown,
  ) {
    super(
      `${operation}: etcd unavailable after ${attempts} attempt(s) in ${Math.round(elapsedMs)} ms` +
        (cause instanceof Error ? ` (last error: ${cause.message})` : ''),
      { cause },
    );
  }
}
