/**
 * Stable machine-readable codes for every error this package throws.
 * Callers branch on `code`, never on message text.
 */
export type LeaseErrorCode =
  | 'ELEASE_INVALID_ARGUMENT'
  | 'ELEASE_REJECTED'
  | 'ELEASE_TOO_LARGE'
  | 'ELEASE_COMPACTED'
  | 'ELEASE_OVERLOADED'
  | 'ELEASE_NO_SPACE'
  | 'ELEASE_UNAVAILABLE'
  | 'ELEASE_ABORTED'
  | 'ELEASE_CLOSED'
  | 'ELEASE_AUTH'
  | 'ELEASE_PERMISSION'
  | 'ELEASE_TLS'
  | 'ELEASE_TIMEOUT'
  | 'ELEASE_LOST'
  | 'ELEASE_EVENT_TOO_LARGE'
  | 'ELEASE_ACK_REFUSED';

/** Marker so `isLeaseError` works across duplicated copies of this package. */
export const LEASE_ERROR = Symbol.for('etcd-lease-provider.error');

/**
 * Base class of every error this package throws on purpose.
 * `retryable` is read by the retry policy: it is a property of the error class,
 * decided once where the error is classified, never re-derived from a message.
 */
export abstract class LeaseError extends Error {
  readonly [LEASE_ERROR] = true;
  abstract readonly code: LeaseErrorCode;
  abstract readonly retryable: boolean;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export function isLeaseError(value: unknown): value is LeaseError {
  return typeof value === 'object' && value !== null && LEASE_ERROR in value;
}
