/** What `acquireLease` resolves to. */
export interface AcquireResult {
  acquired: boolean;
  /** The holder: the caller when `acquired`, else whoever holds the key (read in the same transaction). */
  owner?: string;
  /**
   * Revision that made the caller the holder (decimal string); present when `acquired`, unless the provider was
   * built with `contractResults: true`, which resolves exactly `{ acquired, owner }`.
   */
  fencingToken?: string;
}

/**
 * What an acquire decided, whatever public shape `acquireLease` is configured to resolve to: the provider's own answer.
 * `waitForLease`, `hold` and the `onEvent` listener read this one, so `contractResults` changes only the public shape.
 * (A value of this type is also a valid `AcquireResult`.)
 */
export type AcquireDecision = { acquired: true; owner: string; fencingToken: string } | { acquired: false; owner?: string };

/** What `getLease` reports about a held lease. */
export interface LeaseInfo {
  owner: string;
  /** Present when the lease was taken with run metadata. */
  metadata?: string;
  /** Decimal etcd revision of the holder's last write; strictly greater than any token an earlier holder saw. */
  fencingToken: string;
  /** Milliseconds until etcd may delete the key at the earliest, as the server counts it (whole seconds). */
  ttlRemainingMs: number;
}

/** What `getLeaseRecord` resolves to: the holder, and its run metadata if it has any. */
export interface LeaseRecord {
  owner: string;
  /** Absent for a lease taken without metadata, including every lease written before metadata existed. */
  metadata?: string;
}
