import type { OperationSet } from './calls/operation-set.js';
import type { LeaseClock } from './clock/lease-clock.js';
import type { EtcdCore } from './core/etcd-core.js';
import type { ClosedObject } from './errors/closed.js';

/**
 * Seams inside the package, handed in by `createLeaseProvider` (provider.ts) and not part of the public API (neither
 * is exported from the package entry, and the public constructor takes options alone): a shared core (for
 * EtcdPubSub); for the test suite, the clock, to emulate a suspended machine, and the transaction shapes, so the
 * chaos suite can run deliberately broken providers through the real calls, committer and cluster and prove its
 * checker catches them.
 */
export interface ProviderInternals {
  /** @default a LeaseClock on performance.now() and Date.now() */
  clock?: LeaseClock;
  /** @default the correct shapes (calls/operation-set.ts) */
  operations?: OperationSet;
  /**
   * A core shared with other users of the same etcd client (EtcdPubSub): the provider then neither builds nor closes
   * one. Its options are the core's.
   */
  core?: EtcdCore;
  /** What a call after close() says is closed: the object the caller made (EtcdPubSub for the provider in one). @default 'EtcdLeaseProvider' */
  closedAs?: ClosedObject;
  /** Fixes the tag of the provider's lease ids (leases/lease-id.ts). @default random */
  leaseIdTag?: number;
}
