import type { LeaseProvider } from '@mastra/core/events';

/** The `LeaseProvider` methods (with `getLeaseRecord`), named for error reports. */
export type LeaseOperation = keyof LeaseProvider | 'getLeaseRecord';

/** Options of `withEtcdLeases(pubsub, leases, options)`. */
export interface WithEtcdLeasesOptions {
  /**
   * What the Mastra runtime sees when `acquireLease` fails (etcd unreachable past the provider's
   * deadline, provider closed, …). In `@mastra/core` 1.71:
   *
   * - `'throw'`: the error reaches Mastra. The idle wake (`sendMessage`/`sendSignal` to an idle
   *   thread) counts it as *won* and runs the agent without a lease (fail-open: no message is
   *   dropped, but two processes may run one thread while etcd is unreachable); a plain
   *   `stream()`/`generate()` run counts it as won too (its renewal timer starts); durable-run
   *   recovery fails with the error.
   * - `'deny'`: `acquireLease` resolves `{ acquired: false }` (with `owner` only under
   *   `lastKnownOwnerMaxAgeMs`). The idle wake starts no run and answers `deliver`, and the message
   *   is dropped unless an owner is named to forward it to; a plain `stream()`/`generate()` run
   *   still goes ahead (1.71 proceeds on a lost acquire too), only without renewals; durable-run
   *   registration and recovery report the thread or recovery as taken by another owner.
   *
   * The drains of queued work and the claimed-owner path count a failed acquire as lost whichever
   * setting is chosen. Other operations are never rewritten: Mastra handles renew, release and
   * transfer errors itself.
   * @default 'throw'
   */
  onAcquireError?: 'throw' | 'deny';
  /**
   * Called with every error a lease operation raises, before `onAcquireError` applies.
   * Mastra's runtime swallows most lease errors (renewals, releases, transfers), so this
   * is the place to log or count them. Exceptions thrown by the callback are ignored.
   */
  onLeaseError?: (error: unknown, operation: LeaseOperation, key: string) => void;
  /**
   * While etcd cannot be reached (`EtcdUnavailableError`), answer from the holder etcd named for the key at most this
   * many milliseconds ago — by a read, an acquire, a renewal or a transfer through this adapter:
   *
   * - `getLeaseOwner` resolves with that holder instead of rejecting. `@mastra/core` 1.71 polls it once per lease TTL
   *   to watch a run held by another process and takes a rejection as "that run finished", so without this a
   *   `stream()` waiting behind that run starts a second run of the thread during an outage; with it, it keeps
   *   waiting, for at most this long past the last answer;
   * - with `onAcquireError: 'deny'`, a failed acquire by another owner resolves `{ acquired: false, owner }`, so the
   *   idle wake forwards the message to that run instead of dropping it.
   *
   * A stale answer only ever says "busy": a holder that let go in the meantime costs a waiter up to this long, and a
   * message forwarded to a run that has ended is lost as it would have been. Nothing is ever reported as acquired
   * that etcd did not grant. Set it above the longest outage you want to ride out (e.g. 30000); the lease provider
   * itself always answers reads from etcd. Off when absent.
   */
  lastKnownOwnerMaxAgeMs?: number;
  /**
   * Whether `close()` also closes the lease provider when the caller passed an existing
   * provider instance. A provider built by `withEtcdLeases` from options is always closed.
   * Set to `false` when one provider is shared by several pubsubs.
   * @default true
   */
  closeLeaseProvider?: boolean;
  /**
   * Whether `close()` also closes the wrapped pubsub (when it has a `close()` method).
   * @default true
   */
  closePubSub?: boolean;
}
