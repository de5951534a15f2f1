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

/** What `getLeaseRecord` resolves to (Mastra's `LeaseRecord`): the holder, and its run metadata if it has any. */
export interface LeaseRecord {
  owner: string;
  /** Absent for a lease taken without metadata, including every lease written before metadata existed. */
  metadata?: string;
}
