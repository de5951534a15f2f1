import type { LeaseProvider } from '@mastra/core/events';
import type { LeaseRecordProvider } from '../../src/mastra/lease-record-provider.js';
import type { LeaseRecord } from '../../src/results.js';

/**
 * The five lease methods as the contract suite calls them. Without metadata they are called with exactly Mastra's
 * arguments, so Mastra's own provider sees nothing new; with metadata every owner carries its run's metadata
 * (`runOf(owner)`) on every call, as a caller of the run-metadata extension passes it, and `record` reads it back.
 */
export interface LeaseCalls {
  acquire(key: string, owner: string, ttlMs: number): Promise<{ acquired: boolean; owner?: string }>;
  renew(key: string, owner: string, ttlMs: number): Promise<boolean>;
  release(key: string, owner: string): Promise<void>;
  transfer(key: string, from: string, to: string, ttlMs: number): Promise<boolean>;
  owner(key: string): Promise<string | undefined>;
  /** The holder with its metadata; without metadata, `{ owner }` from getLeaseOwner. */
  record(key: string): Promise<LeaseRecord | undefined>;
}

/** Run metadata of an owner in the metadata variant: NUL and non-ASCII included, so it must survive byte-exactly. */
export function runOf(owner: string): string {
  return `run\u0000${owner}/é🧵`;
}

export function leaseCalls(provider: LeaseProvider, withMetadata: boolean): LeaseCalls {
  if (!withMetadata) {
    return {
      acquire: (key, owner, ttlMs) => provider.acquireLease(key, owner, ttlMs),
      renew: (key, owner, ttlMs) => provider.renewLease(key, owner, ttlMs),
      release: (key, owner) => provider.releaseLease(key, owner),
      transfer: (key, from, to, ttlMs) => provider.transferLease(key, from, to, ttlMs),
      owner: (key) => provider.getLeaseOwner(key),
      record: async (key) => {
        const owner = await provider.getLeaseOwner(key);
        return owner === undefined ? undefined : { owner };
      },
    };
  }
  const p = provider as LeaseRecordProvider;
  if (typeof p.getLeaseRecord !== 'function') throw new Error('the metadata variant needs a provider with getLeaseRecord');
  return {
    acquire: (key, owner, ttlMs) => p.acquireLease(key, owner, ttlMs, runOf(owner)),
    renew: (key, owner, ttlMs) => p.renewLease(key, owner, ttlMs, runOf(owner)),
    release: (key, owner) => p.releaseLease(key, owner, runOf(owner)),
    transfer: (key, from, to, ttlMs) => p.transferLease(key, from, to, ttlMs, runOf(from), runOf(to)),
    owner: (key) => p.getLeaseOwner(key),
    record: (key) => p.getLeaseRecord(key),
  };
}

/** The record a holder's calls leave in the given variant. */
export function recordOf(owner: string, withMetadata: boolean): LeaseRecord {
  return withMetadata ? { owner, metadata: runOf(owner) } : { owner };
}
