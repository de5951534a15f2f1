import { isLeaseProvider, PubSub } from '@mastra/core/events';
import type { Event, EventCallback, LeaseProvider, PubSubDeliveryMode, SubscribeOptions } from '@mastra/core/events';

import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import type { LeaseRecord } from '../results.js';
import { guardLeaseProvider } from './guarded-lease-provider.js';
import { handThrough } from './hand-through.js';
import { hasLeaseRecords, type LeaseRecordProvider } from './lease-record-provider.js';
import type { WithEtcdLeasesOptions } from './options.js';

/** A lease provider that may own resources (an etcd client) to free on shutdown. */
export type ClosableLeaseProvider = LeaseProvider & { close?(): Promise<void> };

/**
 * A Mastra `PubSub` that delivers events through one pubsub and takes leases from a separate lease provider: what
 * `withEtcdLeases` returns, and what `EtcdPubSub` is.
 *
 * Mastra's runtime resolves the lease provider of its configured pubsub by calling
 * `getLeaseProvider()` when the pubsub has one, and otherwise by duck-typing the five lease
 * methods (`isLeaseProvider`). This class answers both ways, so the leases are etcd's whether
 * Mastra sees this object directly, through the `mastra.pubsub` proxy, or as the inner of a
 * `CachingPubSub` (whose `getLeaseProvider()` returns its inner when that is a lease provider).
 * Lease methods of the wrapped pubsub (e.g. `EventEmitterPubSub`'s in-memory map, Redis
 * `SET NX`) are never used.
 *
 * Fields are ordinary (TypeScript-private) properties rather than `#private` ones: callers
 * such as `mastra.pubsub` wrap pubsubs in a `Proxy`, and `#private` access through a proxy
 * that does not re-bind `this` throws.
 */
export class PubSubWithLeases extends PubSub implements LeaseProvider {
  private readonly events: PubSub;
  private readonly provider: ClosableLeaseProvider;
  private readonly leases: LeaseRecordProvider;
  private readonly closeLeaseProvider: boolean;
  /**
   * Holder and run metadata of a key (the run-metadata extension; no Mastra version calls it). An own property,
   * present only when the lease provider keeps metadata, so that its presence means the metadata is really kept.
   */
  declare readonly getLeaseRecord?: (key: string) => Promise<LeaseRecord | undefined>;
  private readonly closePubSub: boolean;
  private closing: Promise<void> | undefined;

  /**
   * @param events the pubsub every event operation is delegated to.
   * @param provider the lease provider every lease operation is delegated to.
   */
  constructor(events: PubSub, provider: ClosableLeaseProvider, options: WithEtcdLeasesOptions = {}) {
    super();
    validate(events, provider, options);
    this.events = events;
    this.provider = provider;
    this.leases = guardLeaseProvider(provider, options) as LeaseRecordProvider;
    if (hasLeaseRecords(this.leases)) this.getLeaseRecord = (key) => this.leases.getLeaseRecord(key);
    this.closeLeaseProvider = options.closeLeaseProvider ?? true;
    this.closePubSub = options.closePubSub ?? true;
    // Members of the wrapped pubsub this class does not name (a newer Mastra's `trimTopic`, …) are handed through as
    // they are. Lease members never are: leases are the provider's, and `getLeaseRecord` exists here only when the
    // provider keeps run metadata.
    handThrough(this, events, PubSub.prototype, LEASE_MEMBERS);
  }

  // ── event delivery: every member of PubSub (1.71), delegated as called; any other member of the wrapped pubsub is
  // handed through at construction (hand-through.ts) ──

  publish(topic: string, event: Omit<Event, 'id' | 'createdAt'>, options?: { localOnly?: boolean }): Promise<void> {
    return this.events.publish(topic, event, options);
  }

  subscribe(topic: string, cb: EventCallback, options?: SubscribeOptions): Promise<void> {
    return this.events.subscribe(topic, cb, options);
  }

  unsubscribe(topic: string, cb: EventCallback): Promise<void> {
    return this.events.unsubscribe(topic, cb);
  }

  flush(): Promise<void> {
    return this.events.flush();
  }

  override clearTopic(topic: string): Promise<void> {
    return this.events.clearTopic(topic);
  }

  override getHistory(topic: string, offset?: number): Promise<Event[]> {
    return this.events.getHistory(topic, offset);
  }

  override subscribeWithReplay(topic: string, cb: EventCallback): Promise<void> {
    return this.events.subscribeWithReplay(topic, cb);
  }

  // `onUnsupportedOffset` is not overridden: the base class only calls it from its own
  // `subscribeFromOffset`, which is replaced here, so the wrapped pubsub's hook (and its
  // logger) is the one that fires. It is protected, so it could not be forwarded anyway.
  override subscribeFromOffset(topic: string, offset: number, cb: EventCallback): Promise<void> {
    return this.events.subscribeFromOffset(topic, offset, cb);
  }

  override get supportedModes(): ReadonlyArray<PubSubDeliveryMode> {
    return this.events.supportedModes;
  }

  override get supportsNativeBatching(): boolean {
    return this.events.supportsNativeBatching;
  }

  override get supportsOffsets(): boolean {
    return this.events.supportsOffsets;
  }

  /** The pubsub events are delivered through (e.g. to reach `UnixSocketPubSub.isBroker`). */
  getInner(): PubSub {
    return this.events;
  }

  // ── leases ──

  /** The lease provider Mastra's runtime uses for this pubsub (with the error policy applied). */
  getLeaseProvider(): LeaseProvider {
    return this.leases;
  }

  // Each takes the optional run metadata after Mastra's arguments and passes it on unchanged.

  acquireLease(key: string, owner: string, ttlMs: number, metadata?: string): Promise<{ acquired: boolean; owner?: string }> {
    return metadata === undefined ? this.leases.acquireLease(key, owner, ttlMs) : this.leases.acquireLease(key, owner, ttlMs, metadata);
  }

  getLeaseOwner(key: string): Promise<string | undefined> {
    return this.leases.getLeaseOwner(key);
  }

  releaseLease(key: string, owner: string, metadata?: string): Promise<void> {
    return metadata === undefined ? this.leases.releaseLease(key, owner) : this.leases.releaseLease(key, owner, metadata);
  }

  renewLease(key: string, owner: string, ttlMs: number, metadata?: string): Promise<boolean> {
    return metadata === undefined ? this.leases.renewLease(key, owner, ttlMs) : this.leases.renewLease(key, owner, ttlMs, metadata);
  }

  transferLease(key: string, fromOwner: string, toOwner: string, ttlMs: number, fromMetadata?: string, toMetadata?: string): Promise<boolean> {
    if (fromMetadata === undefined && toMetadata === undefined) return this.leases.transferLease(key, fromOwner, toOwner, ttlMs);
    return this.leases.transferLease(key, fromOwner, toOwner, ttlMs, fromMetadata, toMetadata);
  }

  // ── lifecycle ──

  /**
   * Closes the wrapped pubsub, then the lease provider (see `closePubSub` and
   * `closeLeaseProvider`). Events stop first: an event arriving after the leases are gone
   * would make Mastra try to acquire on a closed provider, and with `onAcquireError: 'throw'`
   * its idle-wake path would then run the agent without a lease. Both sides are attempted even
   * when the first fails. Idempotent: later calls return the first call's promise.
   *
   * Mastra's `shutdown()` closes neither side; call this after it.
   */
  close(): Promise<void> {
    this.closing ??= this.closeBothSides();
    return this.closing;
  }

  private async closeBothSides(): Promise<void> {
    const errors: unknown[] = [];
    const attempt = async (close: () => Promise<void>): Promise<void> => {
      try {
        await close();
      } catch (error) {
        errors.push(error);
      }
    };
    const inner = this.events as PubSub & { close?(): Promise<void> };
    if (this.closePubSub && typeof inner.close === 'function') await attempt(() => inner.close!());
    const provider = this.provider;
    if (this.closeLeaseProvider && typeof provider.close === 'function') await attempt(() => provider.close!());
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) {
      throw new AggregateError(errors, 'PubSubWithLeases.close: both the pubsub and the lease provider failed to close');
    }
  }
}

/** Lease members, which a wrapped pubsub may have too (Mastra's Redis backend has every one): never handed through. */
const LEASE_MEMBERS = ['acquireLease', 'getLeaseOwner', 'releaseLease', 'renewLease', 'transferLease', 'getLeaseProvider', 'getLeaseRecord'];

/** Structural, like Mastra's own checks: a pubsub from another copy of `@mastra/core` is fine. */
function validate(events: unknown, provider: unknown, options: WithEtcdLeasesOptions): void {
  const candidate = events as Partial<Record<'publish' | 'subscribe' | 'unsubscribe' | 'flush', unknown>> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    !(['publish', 'subscribe', 'unsubscribe', 'flush'] as const).every((method) => typeof candidate[method] === 'function')
  ) {
    throw new LeaseArgumentTypeError('pubsub', 'expected a Mastra PubSub (publish, subscribe, unsubscribe, flush)');
  }
  if (!isLeaseProvider(provider)) {
    throw new LeaseArgumentTypeError(
      'leases',
      'expected a LeaseProvider (acquireLease, getLeaseOwner, releaseLease, renewLease, transferLease)',
    );
  }
  const { onAcquireError } = options;
  if (onAcquireError !== undefined && onAcquireError !== 'throw' && onAcquireError !== 'deny') {
    throw new LeaseArgumentRangeError('options.onAcquireError', `expected 'throw' or 'deny', got ${String(onAcquireError)}`);
  }
  if (options.onLeaseError !== undefined && typeof options.onLeaseError !== 'function') {
    throw new LeaseArgumentTypeError('options.onLeaseError', 'expected a function');
  }
  const { lastKnownOwnerMaxAgeMs: maxAge } = options;
  if (maxAge !== undefined && typeof maxAge !== 'number') {
    throw new LeaseArgumentTypeError('options.lastKnownOwnerMaxAgeMs', `expected a number of milliseconds, got ${typeof maxAge}`);
  }
  if (maxAge !== undefined && (!Number.isFinite(maxAge) || maxAge <= 0)) {
    throw new LeaseArgumentRangeError('options.lastKnownOwnerMaxAgeMs', `expected a positive, finite number of milliseconds, got ${String(maxAge)}`);
  }
}
