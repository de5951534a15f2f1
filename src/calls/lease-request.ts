import type { ClockMoment } from '../clock/lease-clock.js';

/** One acquire, renew or transfer, as the provider validated it: `value` is to hold `etcdKey` for `ttlMs` from `sent`. */
export interface LeaseRequest {
  readonly etcdKey: Buffer;
  /** `etcdKey` as a latin1 string: the key's identity in the provider's tables, computed once per call. */
  readonly keyId: string;
  /** Stored value: owner and metadata (keys/lease-value.ts). */
  readonly value: Buffer;
  readonly ttlMs: number;
  /** When the caller made the call: the lease must last `ttlMs` beyond it, on both of the LeaseClock's scales. */
  readonly sent: ClockMoment;
}
