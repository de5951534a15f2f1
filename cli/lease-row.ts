import type { IKeyValue } from 'etcd3';
import { decodeKey } from '../src/keys/key-codec.js';
import { decodeLeaseValue } from '../src/keys/lease-value.js';
import { quote } from './key-text.js';

/** One lease as `list --json`, `--ndjson` and `get --json` print it; the field set is part of the CLI's contract. */
export interface LeaseRow {
  /** The lease key as the provider's callers name it (prefix stripped). */
  key: string;
  owner: string;
  /** The run metadata the lease was taken with; absent (not null, not '') when it was taken without. */
  metadata?: string;
  /** Decimal etcd mod revision of the key: the holder's fencing token. */
  fencingToken: string;
  /** Whole seconds the server still counts, in ms; 0 when it is about to vanish; null when the key has no etcd lease. */
  ttlRemainingMs: number | null;
}

/** A lease as read, with what `stats` and `release --force` need besides the printed fields. */
export interface StoredLease extends LeaseRow {
  /** The etcd lease the key is attached to, decimal; '0' for none. */
  leaseId: string;
  /** The revision the key was created at: unchanged by renewals and transfers, new after a release and re-acquire. */
  createRevision: string;
}

/** The fields of a key-value a lease is made of (a range response's and a transaction's read alike). */
export type StoredKeyValue = Pick<IKeyValue, 'key' | 'value' | 'mod_revision' | 'create_revision' | 'lease'>;

/** Decodes a key-value read under `prefix`; the TTL comes from a separate lookup of its etcd lease. */
export function storedLease(prefix: Buffer, kv: StoredKeyValue, ttlRemainingMs: number | null): StoredLease {
  const holder = decodeLeaseValue(kv.value);
  const lease: StoredLease = { key: decodeKey(prefix, kv.key), owner: holder.owner, fencingToken: kv.mod_revision, ttlRemainingMs, leaseId: kv.lease, createRevision: kv.create_revision };
  if (holder.metadata !== undefined) lease.metadata = holder.metadata;
  return lease;
}

/** The printed fields only, in a fixed order; `metadata` only when the lease has it. */
export function leaseJson(lease: LeaseRow): LeaseRow {
  const { key, owner, metadata, fencingToken, ttlRemainingMs } = lease;
  return { key, owner, ...(metadata === undefined ? {} : { metadata }), fencingToken, ttlRemainingMs };
}

/** Owner and metadata for text output, both as JSON string literals (NUL and control characters escaped). */
export function holderText(holder: { owner: string; metadata?: string }): string {
  return holder.metadata === undefined ? quote(holder.owner) : `${quote(holder.owner)} (metadata ${quote(holder.metadata)})`;
}

export function formatTtl(ms: number | null): string {
  return ms === null ? 'none' : `${ms / 1000}s`;
}
