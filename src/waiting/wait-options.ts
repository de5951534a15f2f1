/** Options of `waitForLease` and `hold`. */
export interface WaitForLeaseOptions {
  /**
   * Gives up waiting: the call rejects with `LeaseAbortedError` (`ELEASE_ABORTED`) and holds nothing.
   * For `hold` it governs the wait only; once the handle is returned, end it with `release()`.
   */
  signal?: AbortSignal;
  /**
   * Gives up after this many milliseconds: the call rejects with `LeaseWaitTimeoutError`
   * (`ELEASE_TIMEOUT`) and holds nothing.
   * @default Infinity (wait until the lease is acquired, the signal aborts or the provider is closed)
   */
  timeoutMs?: number;
  /**
   * Run metadata the lease is taken with (an optional extension; no Mastra passes it); it must match exactly
   * for the wait to succeed and for the handle's renews and release.
   * @default undefined (a lease without metadata)
   */
  metadata?: string;
}

/** What `waitForLease` resolves to: the caller now holds the lease. */
export interface WaitForLeaseResult {
  acquired: true;
  owner: string;
  /** Revision of the write that made the caller the holder (decimal string); see `AcquireResult.fencingToken`. */
  fencingToken: string;
}
