import { isBrokenCircuitError } from 'cockatiel';
import { LeaseError } from './lease-error.js';

/** Why one endpoint could not serve, as far as the client saw. */
export interface EndpointCause {
  /** The endpoint as given in `hosts`. */
  readonly endpoint: string;
  /**
   * - `refused`: nothing listens there (ECONNREFUSED);
   * - `timeout`: no answer in time (a hung, paused or cut-off member);
   * - `dns`: the name does not resolve;
   * - `tls`: the TLS handshake failed, or one side speaks TLS and the other does not;
   * - `unavailable`: it accepts connections but could not serve (e.g. etcd without a leader), or closed them;
   * - `error`: any other failure, in its own words.
   */
  readonly kind: 'refused' | 'timeout' | 'dns' | 'tls' | 'unavailable' | 'error';
  /** A phrase that follows the endpoint: `127.0.0.1:2379 refused the connection (ECONNREFUSED)`. */
  readonly detail: string;
}

/**
 * etcd could not be reached, or had no quorum, for the whole deadline of a call.
 * The operation may or may not have taken effect on the server: treat the lease
 * as *not* held by this call (it never reports success it did not observe).
 * `endpoints` says, per endpoint that failed, why (empty when the client could not tell, e.g. a client
 * passed in by the caller); the message names them too.
 */
export class EtcdUnavailableError extends LeaseError {
  readonly code = 'ELEASE_UNAVAILABLE' as const;
  readonly retryable = true;

  constructor(
    readonly operation: string,
    readonly attempts: number,
    readonly elapsedMs: number,
    cause: unknown,
    readonly endpoints: readonly EndpointCause[] = [],
  ) {
    super(`${operation}: etcd unavailable after ${attempts} attempt(s) in ${Math.round(elapsedMs)} ms${why(endpoints, cause)}`, { cause });
  }
}

function why(endpoints: readonly EndpointCause[], cause: unknown): string {
  if (endpoints.length > 0) return `: ${endpoints.map((e) => `${e.endpoint} ${e.detail}`).join('; ')}`;
  // An open breaker only says that earlier attempts failed, not why: no cause is better than that one.
  if (cause instanceof Error && !isBrokenCircuitError(cause)) return ` (last error: ${cause.message})`;
  return '';
}
