/** One acquire or renew, as the provider validated it: `value` is to hold `etcdKey` for `ttlMs` from `sentAt`. Times are LeaseClock ms. */
export interface LeaseRequest {
  readonly etcdKey: Buffer;
  /** Stored value: owner and metadata (keys/lease-value.ts). */
  readonly value: Buffer;
  readonly ttlMs: number;
  /** When the caller made the call: the lease must last until sentAt + ttlMs. */
  readonly sentAt: number;
}
