import { LEASE_ERROR, type LeaseErrorCode } from './lease-error.js';

/**
 * A parameter has the wrong type or is empty. Thrown before anything is sent to etcd.
 * Extends the built-in `TypeError` so generic input-checking code keeps working.
 */
export class LeaseArgumentTypeError extends TypeError {
  readonly [LEASE_ERROR] = true;
  readonly code: LeaseErrorCode = 'ELEASE_INVALID_ARGUMENT';
  readonly retryable = false;

  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
    this.name = 'LeaseArgumentTypeError';
  }
}

/**
 * A parameter has the right type but a value outside what etcd can honour
 * (ttlMs not positive, a key larger than a request may carry…).
 * Thrown before anything is sent to etcd.
 */
export class LeaseArgumentRangeError extends RangeError {
  readonly [LEASE_ERROR] = true;
  readonly code: LeaseErrorCode = 'ELEASE_INVALID_ARGUMENT';
  readonly retryable = false;

  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
    this.name = 'LeaseArgumentRangeError';
  }
}
