import { LeaseError } from './lease-error.js';

/**
 * etcd answered a lease's remaining TTL with a value it cannot have (above the granted TTL plus a margin: a member
 * that has just become leader answers 9 223 372 036 s for every lease until it applies its first entry, in etcd
 * before 3.4.32 / 3.5.14). Retryable: the next attempt asks again, normally moments later and answered right; a
 * call whose deadline passes first fails with `EtcdUnavailableError`, this error as its cause.
 */
export class LeaseTtlUnknownError extends LeaseError {
  readonly code = 'ELEASE_UNAVAILABLE' as const;
  readonly retryable = true;

  constructor(
    readonly leaseId: string,
    ttlSeconds: number,
    grantedSeconds: number,
  ) {
    super(`etcd answered ${ttlSeconds} s left for lease ${leaseId} granted for ${grantedSeconds} s, which it cannot have (a leader that has just taken over)`);
  }
}
