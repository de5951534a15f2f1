import { LeaseError } from './lease-error.js';

/**
 * The provider refused to send this call because etcd could not commit everything asked of it in time: more work
 * waited for etcd than it commits within the provider's queue horizon, and this call was the first to shed: fresh work
 * (the newest first) goes before any renewal of a lease still open, and such renewals go only when they are much of the
 * load (the one with the most time left first). The provider sheds at once rather than let every call wait in a queue
 * until all of them miss.
 *
 * It is an error like any other: a shed renewLease says nothing about the lease, so its caller believes no longer than
 * its previous successful renewal allows (a renewal on Mastra's ttl/3 timer has two more chances before then). The
 * attempt that was shed was never sent; an earlier attempt of the same call may have been (after a timeout), so, as
 * for EtcdUnavailableError, the call may or may not have taken effect. Not retried by the provider: resending at once
 * adds to the very load it was shed for; retry on your own schedule. A `hold()` handle and a waiter do: to them a shed
 * attempt is no answer yet.
 */
export class EtcdOverloadedError extends LeaseError {
  readonly code = 'ELEASE_OVERLOADED' as const;
  readonly retryable = false;

  constructor(
    readonly operation: string,
    /** Operations waiting to be sent when it was shed. */
    readonly queued: number,
    /** About how long the queue takes to commit at the recent rate, in ms. */
    readonly backlogMs: number,
  ) {
    super(
      `${operation}: shed under overload: ${queued} operations waited for etcd, about ${Math.round(backlogMs)} ms of commits at the recent rate, ` +
        'and this one was the least urgent; not sent, and not retried by the provider',
    );
  }
}
