import type { LeaseProvider } from '@mastra/core/events';

import type { ClockSource } from '../clock/clock-source.js';
import { isUnreachable, LastKnownOwners } from './last-known-owners.js';
import { hasLeaseRecords, type LeaseRecordProvider } from './lease-record-provider.js';
import type { LeaseOperation, WithEtcdLeasesOptions } from './options.js';

type Guard = Pick<WithEtcdLeasesOptions, 'onAcquireError' | 'onLeaseError' | 'lastKnownOwnerMaxAgeMs'>;

/**
 * Applies the Mastra-facing error policy to a lease provider. It lives here, not in the
 * provider, because the policy is about how `@mastra/core` reads a result: the provider's
 * contract is to throw when it cannot tell (and to answer reads linearizably), and only the
 * Mastra adapter knows that a thrown acquire means "go ahead" on the idle-wake path and that a
 * failed owner read means "the remote run finished" to the runtime's owner watch.
 *
 * Returns `provider` itself when no policy is configured, so `getLeaseProvider()` hands
 * Mastra the very object the caller gave.
 */
export function guardLeaseProvider(provider: LeaseProvider, guard: Guard, clock?: ClockSource): LeaseProvider {
  const { onAcquireError = 'throw', onLeaseError, lastKnownOwnerMaxAgeMs } = guard;
  if (onAcquireError === 'throw' && onLeaseError === undefined && lastKnownOwnerMaxAgeMs === undefined) return provider;
  const known = lastKnownOwnerMaxAgeMs === undefined ? undefined : new LastKnownOwners(lastKnownOwnerMaxAgeMs, clock);

  const report = (error: unknown, operation: LeaseOperation, key: string): void => {
    try {
      onLeaseError?.(error, operation, key);
    } catch {
      // An observer must not change the outcome of the lease operation it observes.
    }
  };

  /** Runs `call`; on success `learn` sees its result and when it was sent, on failure `onError` decides. */
  async function observed<T>(
    operation: LeaseOperation,
    key: string,
    call: () => Promise<T>,
    learn?: (result: T, sentAt: number) => void,
    onError?: (error: unknown) => T,
  ): Promise<T> {
    const sentAt = known?.now() ?? 0;
    let result: T;
    try {
      result = await call();
    } catch (error) {
      report(error, operation, key);
      if (onError === undefined) throw error;
      return onError(error);
    }
    if (known !== undefined) learn?.(result, sentAt);
    return result;
  }

  // Metadata and any further arguments go through untouched; getLeaseRecord only if the provider has it.
  const inner = provider as LeaseRecordProvider;
  const guarded: LeaseRecordProvider = {
    acquireLease: (key, owner, ttlMs, ...rest: [string?]) =>
      observed(
        'acquireLease',
        key,
        () => inner.acquireLease(key, owner, ttlMs, ...rest),
        (result, sentAt) => known!.learn(key, result.acquired ? owner : result.owner, sentAt),
        (error) => {
          if (onAcquireError === 'throw') throw error;
          // The holder etcd named lately, when it is not the caller, so that Mastra forwards the message to that run
          // rather than dropping it; otherwise no `owner`: naming a guess would send the message to a run that may
          // not exist. Never `acquired: true` — that is etcd's to say.
          const holder = isUnreachable(error) ? known?.recall(key) : undefined;
          return holder !== undefined && holder !== owner ? { acquired: false, owner: holder } : { acquired: false };
        },
      ),
    getLeaseOwner: (key) =>
      observed(
        'getLeaseOwner',
        key,
        () => inner.getLeaseOwner(key),
        (owner, sentAt) => known!.learn(key, owner, sentAt),
        (error) => {
          const holder = isUnreachable(error) ? known?.recall(key) : undefined;
          if (holder === undefined) throw error;
          return holder;
        },
      ),
    releaseLease: (key, owner, ...rest: [string?]) =>
      observed('releaseLease', key, () => inner.releaseLease(key, owner, ...rest), () => known!.forget(key)),
    renewLease: (key, owner, ttlMs, ...rest: [string?]) =>
      observed(
        'renewLease',
        key,
        () => inner.renewLease(key, owner, ttlMs, ...rest),
        (renewed, sentAt) => (renewed ? known!.learn(key, owner, sentAt) : known!.forget(key)),
      ),
    transferLease: (key, fromOwner, toOwner, ttlMs, ...rest: [string?, string?]) =>
      observed(
        'transferLease',
        key,
        () => inner.transferLease(key, fromOwner, toOwner, ttlMs, ...rest),
        (moved, sentAt) => (moved ? known!.learn(key, toOwner, sentAt) : known!.forget(key)),
      ),
    getLeaseRecord: (key) =>
      observed('getLeaseRecord', key, () => inner.getLeaseRecord(key), (record, sentAt) => known!.learn(key, record?.owner, sentAt)),
  };
  if (!hasLeaseRecords(provider)) delete (guarded as Partial<LeaseRecordProvider>).getLeaseRecord;
  return guarded;
}
