import { LeaseError } from './lease-error.js';

/**
 * A read asked for a revision etcd has already compacted away (its history is gone). A paged read pins every page
 * to its first page's revision so the listing is one snapshot; if compaction passes that revision while the pages
 * are read, the snapshot cannot be finished — only started again, at a newer revision. Never retried.
 */
export class EtcdCompactedError extends LeaseError {
  readonly code = 'ELEASE_COMPACTED' as const;
  readonly retryable = false;

  constructor(
    readonly operation: string,
    /** The revision asked for, when the caller knows it. */
    readonly revision: string | undefined,
    cause: unknown,
  ) {
    super(`${operation}: etcd has compacted ${revision === undefined ? 'the revision asked for' : `revision ${revision}`}; read again at a newer revision`, { cause });
  }
}
