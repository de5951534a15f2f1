import type { LeaseProvider, PubSub } from '@mastra/core/events';
import { describe, expectTypeOf, it } from 'vitest';
import {
  EtcdLeaseProvider,
  type AcquireNotWon,
  type AcquireResult,
  type AcquireWon,
  type ContractAcquireResult,
  type LeaseInfo,
  type LeaseRecord,
} from '../../src/index.js';
import { EtcdPubSub, withEtcdLeases } from '../../src/mastra/index.js';

/**
 * The call forms users write, checked by the compiler (this file is type-checked, never run): each accepted form
 * resolves to the documented type, and each line under `@ts-expect-error` must stay an error — were it to compile,
 * the directive itself fails the check. Everything is imported from the two public entries, as a user would.
 */
declare const provider: EtcdLeaseProvider;
declare const signal: AbortSignal;
declare const delivery: PubSub;
const call = { signal, deadlineMs: 2000 };

describe('acquireLease', () => {
  it('takes (key, owner, ttl), then run metadata and/or per-call options', () => {
    expectTypeOf(provider.acquireLease('k', 'run-1', 30_000)).toEqualTypeOf<Promise<AcquireResult>>();
    expectTypeOf(provider.acquireLease('k', 'run-1', 30_000, { signal })).toEqualTypeOf<Promise<AcquireResult>>();
    expectTypeOf(provider.acquireLease('k', 'run-1', 30_000, 'metadata')).toEqualTypeOf<Promise<AcquireResult>>();
    expectTypeOf(provider.acquireLease('k', 'run-1', 30_000, 'metadata', { signal })).toEqualTypeOf<Promise<AcquireResult>>();
    expectTypeOf(provider.acquireLease('k', 'run-1', 30_000, undefined, call)).toEqualTypeOf<Promise<AcquireResult>>();
  });

  it('resolves a union that narrows on `acquired` (acquire-result.test-d.ts has the cases)', () => {
    expectTypeOf<AcquireResult>().toEqualTypeOf<AcquireWon | AcquireNotWon>();
    const contractShaped = new EtcdLeaseProvider({ hosts: ['127.0.0.1:2379'], contractResults: true });
    expectTypeOf(contractShaped.acquireLease('k', 'run-1', 30_000)).toEqualTypeOf<Promise<ContractAcquireResult>>();
  });

  it('refuses what is not a key, an owner, a TTL, metadata or call options', () => {
    // @ts-expect-error metadata is a string, not a number
    void provider.acquireLease('k', 'run-1', 30_000, 7);
    // @ts-expect-error the TTL is a number of milliseconds
    void provider.acquireLease('k', 'run-1', '30s');
    // @ts-expect-error no TTL
    void provider.acquireLease('k', 'run-1');
    // @ts-expect-error the key is a string
    void provider.acquireLease(1, 'run-1', 30_000);
    // @ts-expect-error per-call options take a signal and a deadline, nothing else
    void provider.acquireLease('k', 'run-1', 30_000, { timeoutMs: 5 });
    // @ts-expect-error run metadata is a string, not an object of fields
    void provider.acquireLease('k', 'run-1', 30_000, { runId: 'r' }, { signal });
    // @ts-expect-error call options come once: 4th without metadata, 5th after it
    void provider.acquireLease('k', 'run-1', 30_000, { signal }, { signal });
  });
});

describe('renewLease', () => {
  it('takes the same forms as acquire and answers a boolean', () => {
    expectTypeOf(provider.renewLease('k', 'run-1', 30_000)).toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(provider.renewLease('k', 'run-1', 30_000, { signal })).toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(provider.renewLease('k', 'run-1', 30_000, 'metadata', { signal })).toEqualTypeOf<Promise<boolean>>();
    // @ts-expect-error metadata is a string
    void provider.renewLease('k', 'run-1', 30_000, 7);
    // @ts-expect-error no TTL
    void provider.renewLease('k', 'run-1');
    // @ts-expect-error call options come once: 4th without metadata, 5th after it
    void provider.renewLease('k', 'run-1', 30_000, { signal }, { signal });
  });
});

describe('releaseLease', () => {
  it('takes (key, owner), then metadata and/or call options, and resolves nothing', () => {
    expectTypeOf(provider.releaseLease('k', 'run-1')).toEqualTypeOf<Promise<void>>();
    expectTypeOf(provider.releaseLease('k', 'run-1', { signal })).toEqualTypeOf<Promise<void>>();
    expectTypeOf(provider.releaseLease('k', 'run-1', 'metadata', { signal })).toEqualTypeOf<Promise<void>>();
    // @ts-expect-error a release has no TTL: a number here is no metadata
    void provider.releaseLease('k', 'run-1', 30_000);
  });
});

describe('transferLease', () => {
  it('takes (key, from, to, ttl), then both sides\' metadata and call options, and answers a boolean', () => {
    expectTypeOf(provider.transferLease('k', 'run-1', 'run-2', 30_000)).toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(provider.transferLease('k', 'run-1', 'run-2', 30_000, { signal })).toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(provider.transferLease('k', 'run-1', 'run-2', 30_000, 'from-meta', 'to-meta')).toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(provider.transferLease('k', 'run-1', 'run-2', 30_000, 'from-meta', 'to-meta', { signal })).toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(provider.transferLease('k', 'run-1', 'run-2', 30_000, undefined, 'to-meta', call)).toEqualTypeOf<Promise<boolean>>();
  });

  it('refuses call options where the new holder\'s metadata goes, and a missing TTL', () => {
    // @ts-expect-error the 6th argument is toMetadata (a string); call options come 5th or 7th
    void provider.transferLease('k', 'run-1', 'run-2', 30_000, 'from-meta', { signal });
    // @ts-expect-error after call options nothing follows: toMetadata needs fromMetadata before it
    void provider.transferLease('k', 'run-1', 'run-2', 30_000, { signal }, 'to-meta');
    // @ts-expect-error no TTL
    void provider.transferLease('k', 'run-1', 'run-2');
  });
});

describe('reads', () => {
  it('getLeaseOwner, getLeaseRecord and getLease take (key) or (key, call options)', () => {
    expectTypeOf(provider.getLeaseOwner('k')).toEqualTypeOf<Promise<string | undefined>>();
    expectTypeOf(provider.getLeaseOwner('k', { signal })).toEqualTypeOf<Promise<string | undefined>>();
    expectTypeOf(provider.getLeaseRecord('k')).toEqualTypeOf<Promise<LeaseRecord | undefined>>();
    expectTypeOf(provider.getLease('k', call)).toEqualTypeOf<Promise<LeaseInfo | undefined>>();
    // @ts-expect-error a read has no owner argument
    void provider.getLeaseOwner('k', 'run-1');
  });
});

describe("Mastra's interfaces", () => {
  it('the provider is a Mastra LeaseProvider', () => {
    expectTypeOf(provider).toExtend<LeaseProvider>();
  });

  it('withEtcdLeases returns a PubSub that is also a LeaseProvider, from options or from a provider', () => {
    expectTypeOf(withEtcdLeases(delivery, { hosts: ['127.0.0.1:2379'] })).toExtend<PubSub & LeaseProvider>();
    expectTypeOf(withEtcdLeases(delivery, provider, { closeLeaseProvider: false })).toExtend<PubSub & LeaseProvider>();
    // @ts-expect-error the leases come from etcd options or a lease provider, not from a host list
    void withEtcdLeases(delivery, ['127.0.0.1:2379']);
  });

  it('EtcdPubSub is a PubSub and a LeaseProvider', () => {
    expectTypeOf<EtcdPubSub>().toExtend<PubSub & LeaseProvider>();
  });
});
