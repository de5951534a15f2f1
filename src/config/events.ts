import type { LeaseLossReason } from '../errors/lease-lost.js';

// The types of the `onEvent` option, beside the other options: the metrics code and the transport emit these
// events, so they depend on config, never the other way round.

/** State of the circuit breaker guarding one etcd endpoint. */
export type CircuitState = 'closed' | 'half-open' | 'open';

/**
 * What the provider reports to `options.onEvent`. Events carry the lease key and owner (they stay in
 * the process); metrics never do.
 */
export type LeaseEvent =
  /** An acquire (`acquireLease`, or an attempt of `waitForLease`/`hold`) won or refreshed the lease. */
  | { type: 'acquired'; key: string; owner: string; fencingToken: string; durationMs: number }
  /** An acquire found the lease held by another owner. */
  | { type: 'contended'; key: string; owner: string; holder: string | undefined; durationMs: number }
  /** A holder learned it no longer holds its lease (a renew answered false, or a handle saw it go). */
  | { type: 'lost'; key: string; owner: string; reason: LeaseLossReason }
  /** The circuit breaker of one etcd endpoint changed state. */
  | { type: 'circuit'; endpoint: string; state: CircuitState };

/** Receives every `LeaseEvent`, synchronously. An exception it throws is logged and ignored. */
export type LeaseEventListener = (event: LeaseEvent) => void;
