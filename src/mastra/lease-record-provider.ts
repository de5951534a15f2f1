import type { LeaseProvider } from '@mastra/core/events';
import type { LeaseRecord } from '../results.js';

/**
 * Mastra's next lease contract (after `@mastra/core` 1.71): every lease call may carry the run's metadata (its run
 * id, a string), which must match exactly, and `getLeaseRecord` reads holder and metadata together. Mastra switches
 * to it only when a provider has `getLeaseRecord`, so that method is present exactly when the provider behind it
 * really keeps metadata. The methods also satisfy 1.71's `LeaseProvider` (the extra parameters are optional).
 */
export interface LeaseRecordProvider extends LeaseProvider {
  acquireLease(key: string, owner: string, ttlMs: number, metadata?: string): Promise<{ acquired: boolean; owner?: string }>;
  releaseLease(key: string, owner: string, metadata?: string): Promise<void>;
  renewLease(key: string, owner: string, ttlMs: number, metadata?: string): Promise<boolean>;
  transferLease(key: string, fromOwner: string, toOwner: string, ttlMs: number, fromMetadata?: string, toMetadata?: string): Promise<boolean>;
  getLeaseRecord(key: string): Promise<LeaseRecord | undefined>;
}

/** A provider with `getLeaseRecord`: one that keeps run metadata (duck-typed, like Mastra's own check). */
export function hasLeaseRecords(provider: LeaseProvider): provider is LeaseRecordProvider {
  return typeof (provider as Partial<LeaseRecordProvider>).getLeaseRecord === 'function';
}
