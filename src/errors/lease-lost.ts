import { LeaseError } from './lease-error.js';

/**
 * Why a held lease ended.
 * - `renew-refused`: a renew found the key gone or owned by someone else;
 * - `renew-failed`: renewing failed with an error that retrying cannot fix;
 * - `expired`: no renew succeeded in time: the TTL counted from the last successful renew's send time ran out;
 * - `deleted`: a watch saw the key deleted (expired on the server, or removed by someone else);
 * - `taken`: a watch saw the key written with another owner (transferred away, or lost and re-acquired);
 * - `released`: the holder released it;
 * - `closed`: the provider was closed (the lease was released).
 */
export type LeaseLossReason = 'renew-refused' | 'renew-failed' | 'expired' | 'deleted' | 'taken' | 'released' | 'closed';

/** The reason of an aborted `LeaseHandle.signal`: this handle no longer holds its lease. */
export class LeaseLostError extends LeaseError {
  readonly code = 'ELEASE_LOST' as const;
  readonly retryable = false;

  constructor(
    readonly key: string,
    readonly owner: string,
    readonly reason: LeaseLossReason,
    cause?: unknown,
  ) {
    super(`lease ${JSON.stringify(key)} of ${JSON.stringify(owner)} is no longer held (${reason})`, { cause });
  }
}
