import type { LeaseProvider } from '@mastra/core/events';
import type { LeaseRecord } from '../results.js';

/**
 * The run-metadata extension (README, *Run metadata*): every lease call may carry run metadata (a string), which must
 * match exactly, and `getLeaseRecord` reads holder and metadata together. No Mastra version calls it (a proposal for
 * Mastra to do so was closed unmerged); it is present exactly when the provider behind it really keeps metadata, so a
 * caller may detect it by `getLeaseRecord`. The methods also satisfy Mastra's `LeaseProvider` (the extra parameters
 * are optional).
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
