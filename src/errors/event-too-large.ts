import { LeaseError } from './lease-error.js';

/**
 * An event whose encoded form (etcd key and value) is larger than `maxEventBytes`. Thrown by `publish` before
 * anything is queued, so nothing of it is written. Not retryable: the same event is just as large next time.
 */
export class EventTooLargeError extends LeaseError {
  readonly code = 'ELEASE_EVENT_TOO_LARGE' as const;
  readonly retryable = false;

  constructor(
    readonly topic: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`publish: event for topic ${JSON.stringify(topic)} is ${groupDigits(bytes)} bytes encoded; at most ${groupDigits(limit)} (maxEventBytes)`);
  }
}

/** 612345 → "612 345": large byte counts are read at a glance. */
function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}
