import { LeaseError } from './lease-error.js';

/**
 * etcd already knows the lease id the pool chose, and the lease under it cannot be shown to last until the expiry
 * the id stands for (leases/grant.ts). The pool then tries another id; when it runs out of ids the calls waiting
 * for the lease retry it (retryable), and a call whose deadline passes first fails with `EtcdUnavailableError`,
 * this error as its cause. Its code says the same: no lease could be had from etcd in time.
 */
export class LeaseIdTakenError extends LeaseError {
  readonly code = 'ELEASE_UNAVAILABLE' as const;
  readonly retryable = true;

  constructor(
    readonly id: string,
    why: string,
  ) {
    super(`lease id ${id} is taken: ${why}`);
  }
}
