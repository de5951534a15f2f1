import type { LeaseProvider } from '@mastra/core/events';

/** The `LeaseProvider` methods (with `getLeaseRecord`), named for error reports. */
export type LeaseOperation = keyof LeaseProvider | 'getLeaseRecord';

/** Options of `withEtcdLeases(pubsub, leases, options)`. */
export interface WithEtcdLeasesOptions {
  /**
   * What the Mastra runtime sees when `acquireLease` fails (etcd unreachable past the provider's
   * deadline, provider closed, …):
   *
   * - `'throw'`: the error reaches Mastra. `@mastra/core` 1.71 treats a thrown acquire on the
   *   idle-wake path of `sendMessage`/`sendSignal` as *acquired* and runs the agent anyway
   *   (fail-open: no message is dropped, but two processes may run the same thread at once
   *   while etcd is unreachable). Durable-agent recovery (`registerRun` with `strict`) rejects.
   * - `'deny'`: `acquireLease` resolves `{ acquired: false }` with no owner, so Mastra starts
   *   no run (fail-closed: a thread never has two runners, but in 1.71 the idle wake then
   *   resolves `deliver` and the message is not run — it is lost unless the caller persists
   *   and re-sends it).
   *
   * Other operations are never rewritten: Mastra already swallows renew/release errors and
   * turns a failed transfer into a fresh acquire.
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
