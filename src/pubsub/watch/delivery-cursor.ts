/**
 * Which events one subscriber has been given, so that a re-read after a lost history (compaction) delivers only
 * what it has not seen. A watch delivers whole revisions in order, so "everything up to revision R" plus the keys of
 * R itself (one batch can be cut by a read limit, never by a watch) describe the subscriber exactly.
 *
 * Pure state; the subscription feeds it every event it considers, in (revision, key) order.
 */
export class DeliveryCursor {
  private lastRevision: bigint;
  /** Keys delivered at `lastRevision`; 'all' when the whole revision counts as seen (the starting point). */
  private keysAtLast: Set<string> | 'all' = 'all';

  /** @param after events at or below this revision count as seen (a 'latest' subscription's boundary; 0 for 'earliest') */
  constructor(after: string | bigint = 0n) {
    this.lastRevision = BigInt(after);
  }

  /** True exactly once for each (revision, key) above the starting point; false for anything seen or older. */
  accept(revision: string, key: Buffer): boolean {
    const rev = BigInt(revision);
    if (rev < this.lastRevision) return false;
    const id = key.toString('latin1');
    if (rev === this.lastRevision) {
      if (this.keysAtLast === 'all' || this.keysAtLast.has(id)) return false;
      this.keysAtLast.add(id);
      return true;
    }
    this.lastRevision = rev;
    this.keysAtLast = new Set([id]);
    return true;
  }

  /** Counts everything up to `revision` as seen (a 'latest' subscription's boundary, known once its watch exists). */
  skipThrough(revision: string | bigint): void {
    const rev = BigInt(revision);
    if (rev < this.lastRevision) return;
    this.lastRevision = rev;
    this.keysAtLast = 'all';
  }

  /** The last revision delivered (or the starting point). */
  get revision(): bigint {
    return this.lastRevision;
  }
}
