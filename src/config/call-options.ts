/** Per-call options accepted as the last argument of every provider method. */
export interface LeaseCallOptions {
  /** Cancels the call; it rejects with `LeaseAbortedError`. */
  signal?: AbortSignal;
  /** Overrides the provider's `deadlineMs` for this call. */
  deadlineMs?: number;
}
