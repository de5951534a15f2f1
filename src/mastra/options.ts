import type { LeaseProvider } from '@mastra/core/events';

/** The `LeaseProvider` methods (with `getLeaseRecord`), named for error reports. */
export type LeaseOperation = keyof LeaseProvider | 'getLeaseRecord';

/** Options of `withEtcdLeases(pubsub, leases, options)`. */
export interface WithEtcdLeasesOptions {
  /**
   * What the Mastra runtime sees when `acquireLease` fails (etcd unreachable past the provider's
   * deadline, provider closed, …):
   *
   * - `'throw'`: the error reaches Mastra. `@mastra/core` 1.71 counts a rejected acquire on its
   *   idle wake (`sendMessage`/`sendSignal`) and for plain `stream()`/`generate()` runs as *won*
   *   and runs the agent anyway (fail-open: no message is dropped, but two processes may run the
   *   same thread while etcd is unreachable); durable run registration rejects. Mastra's runtime
   *   after 1.71 does the same outside fail-closed admission, and in fail-closed admission and
   *   queue drains acts on the rejection itself (admission error, one bounded owner read): keep
   *   `'throw'` with it.
   * - `'deny'`: `acquireLease` resolves `{ acquired: false }` with no owner. On 1.71 Mastra then
   *   starts no run (fail-closed: a thread never has two runners, but the idle wake resolves
   *   `deliver` and the message is not run — it is lost unless the caller persists and re-sends
   *   it). After 1.71 it hides the rejection the fail-closed paths look for: use it with 1.71 only.
   *
   * Other operations are never rewritten: Mastra handles renew, release and transfer errors itself.
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
