/**
 * What `acquireLease` resolves to: won, with the holder (the caller) and the fencing token, or not won, with the
 * holder read in the same transaction (absent when the key was free at that instant but the caller could not take it).
 * A discriminated union: inside `if (result.acquired)` the token is a `string`.
 */
export type AcquireResult = AcquireWon | AcquireNotWon;

/** A won acquire: the caller holds the key. */
export interface AcquireWon {
  acquired: true;
  owner: string;
  /** Revision of the write that made the caller the holder (decimal string); higher than any earlier holder's token. */
  fencingToken: string;
}

/** An acquire that did not win: someone else holds the key. */
export interface AcquireNotWon {
  acquired: false;
  owner?: string;
  /** Never present; declared so that `result.fencingToken` reads as `string | undefined` before narrowing. */
  fencingToken?: never;
}

/**
 * What `acquireLease` resolves to on a provider built with `contractResults: true`: exactly `{ acquired, owner }`, the
 * shape Mastra's contract states. The token is absent (`getLease`, `waitForLease` and `hold` still carry it).
 */
export type ContractAcquireResult = { acquired: true; owner: string; fencingToken?: never } | AcquireNotWon;

/**
 * The result type of a provider whose `contractResults` setting is `Contract`: `AcquireResult` by default,
 * `ContractAcquireResult` for `true`, either one when the setting is only known as a `boolean`.
 */
export type AcquireResultFor<Contract extends boolean> = Contract extends true ? ContractAcquireResult : AcquireResult;

/**
 * What an acquire decided, whatever public shape `acquireLease` is configured to resolve to: the provider's own answer.
 * `waitForLease`, `hold` and the `onEvent` listener read this one, so `contractResults` changes only the public shape.
 */
export type AcquireDecision = AcquireResult;

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
