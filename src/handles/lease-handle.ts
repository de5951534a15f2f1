/**
 * A lease held and renewed in the background, returned by `hold()`.
 *
 * Use `signal` to stop work the moment the lease is no longer known to be held, and `fencingToken`
 * with every write to a protected resource so a late write from a former holder is rejected.
 * `await using` releases the lease at the end of the scope.
 */
export interface LeaseHandle extends AsyncDisposable {
  readonly key: string;
  readonly owner: string;
  /** The run metadata the lease was taken with (`WaitForLeaseOptions.metadata`), if any. */
  readonly metadata?: string | undefined;
  /** Revision of the write that made this owner the holder (decimal string). Constant for the handle's life. */
  readonly fencingToken: string;
  /**
   * Aborts, with a `LeaseLostError` as its reason, as soon as the lease is known lost — at once when a
   * renew answers false or the watch sees the key deleted or written by another owner, and at the latest
   * at (send time of the last successful renew) + ttlMs — or when the handle is released or the provider closed.
   */
  readonly signal: AbortSignal;
  /** Stops renewing and deletes the key if this owner still holds it. Idempotent. */
  release(): Promise<void>;
}
