/** What the table keeps of one write. */
export interface Tenure {
  value: Buffer;
  revision: string;
  until: number;
  believed: number;
  /** The etcd lease the key is on since that write, when known. */
  lease: string | undefined;
}

/**
 * What this provider last wrote to each key it holds: the stored value (owner + metadata), the mod revision of that
 * write and the lease it left the key on. A release or transfer names that revision in its compare, so it acts on
 * exactly that tenure and never on a later one of the same owner string (operations/release.ts, transfer.ts); a
 * renew refreshes exactly that version (operations/refresh-own.ts).
 *
 * It is a cache, never a source of truth: a missing or outdated entry only costs the call one more round trip (the
 * transaction reads the current version and the call goes on against it). Entries go when the provider releases or
 * hands the key away, and lapse on their own once the lease they describe has ended.
 */
export class TenureTable {
  private readonly entries = new Map<string, Tenure>();
  private sweepAt = 1024;

  /**
   * `value` holds `keyId` through the write at `revision`, at least until `until` (LeaseClock ms): a lower bound on
   * when the key's lease can end, which a renew may wait up to (commit/renew-delay.ts), so never an estimate.
   * `believed` (≤ `until`, default `until`): the end of the window the caller was promised (send time + ttlMs), up to
   * which its holder may rely on the key; a renewal is due before then (calls/lease-backend.ts). `lease`: the etcd
   * lease the write left the key on, if known.
   */
  remember(keyId: string, value: Buffer, revision: string, until: number, now: number, believed = until, lease?: string): void {
    this.entries.set(keyId, { value, revision, until, believed: Math.min(believed, until), lease });
    if (this.entries.size >= this.sweepAt) this.sweep(now);
  }

  /**
   * The version of `keyId` this provider last wrote for `value` — the write's revision and the lease it left the key
   * on — if it knows both: what a refresh names (operations/refresh-own.ts, HeldVersion).
   */
  versionOf(keyId: string, value: Buffer): { readonly revision: string; readonly lease: string } | undefined {
    const entry = this.entries.get(keyId);
    // The entry itself (its lease checked), not a copy: this runs for every renewal.
    return entry !== undefined && entry.lease !== undefined && entry.value.equals(value) ? (entry as { revision: string; lease: string }) : undefined;
  }

  /** Everything known of the last write of `value` to `keyId`, in one lookup (see the accessors below for each part). */
  entryFor(keyId: string, value: Buffer): Readonly<Tenure> | undefined {
    const entry = this.entries.get(keyId);
    return entry !== undefined && entry.value.equals(value) ? entry : undefined;
  }

  /** Revision of the last write of `value` to `keyId` this provider knows of, if any. */
  revisionOf(keyId: string, value: Buffer): string | undefined {
    const entry = this.entries.get(keyId);
    return entry !== undefined && entry.value.equals(value) ? entry.revision : undefined;
  }

  /** The `until` of the last write of `value` to `keyId` this provider knows of, if any. */
  protectedUntil(keyId: string, value: Buffer): number | undefined {
    const entry = this.entries.get(keyId);
    return entry !== undefined && entry.value.equals(value) ? entry.until : undefined;
  }

  /** The `believed` of the last write of `value` to `keyId` this provider knows of, if any. */
  believedUntil(keyId: string, value: Buffer): number | undefined {
    const entry = this.entries.get(keyId);
    return entry !== undefined && entry.value.equals(value) ? entry.believed : undefined;
  }

  /** Forget `keyId` if it is recorded as held by `value`. */
  forget(keyId: string, value: Buffer): void {
    const entry = this.entries.get(keyId);
    if (entry !== undefined && entry.value.equals(value)) this.entries.delete(keyId);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops entries whose lease has ended; the next sweep waits until the table has doubled again. */
  private sweep(now: number): void {
    for (const [keyId, entry] of this.entries) if (entry.until <= now) this.entries.delete(keyId);
    this.sweepAt = Math.max(1024, this.entries.size * 2);
  }
}
