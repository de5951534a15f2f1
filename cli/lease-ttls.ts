/**
 * Remaining TTLs of the etcd leases keys are attached to. Keys share pooled leases, so each lease is asked about
 * once — and again after `freshMs`, because a listing of many pages takes seconds and an old answer would show
 * more time left than there is. Entries older than that are dropped as the listing goes, so memory holds the
 * leases of the last second or so, not of the whole listing.
 */
export class LeaseTtls {
  private readonly cache = new Map<string, { ttlMs: number | null; at: number }>();

  constructor(
    /** The TTL the server still counts for one lease, in ms (`null`: none). */
    private readonly lookup: (leaseId: string) => Promise<number | null>,
    private readonly options: { freshMs?: number; concurrency?: number; now?: () => number } = {},
  ) {}

  /** The TTL of every lease in `leaseIds`; '0' (no lease) is null without asking. */
  async resolve(leaseIds: Iterable<string>): Promise<Map<string, number | null>> {
    const now = this.options.now?.() ?? performance.now();
    const freshMs = this.options.freshMs ?? 1000;
    for (const [id, entry] of this.cache) if (now - entry.at > freshMs) this.cache.delete(id);
    const result = new Map<string, number | null>();
    const missing: string[] = [];
    for (const id of new Set(leaseIds)) {
      if (id === '0') result.set(id, null);
      else if (this.cache.has(id)) result.set(id, this.cache.get(id)!.ttlMs);
      else missing.push(id);
    }
    // A bounded number of lookups at once: a page of keys on distinct leases must not open a thousand calls.
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < missing.length) {
        const id = missing[next++]!;
        const ttlMs = await this.lookup(id);
        this.cache.set(id, { ttlMs, at: now });
        result.set(id, ttlMs);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency ?? 16, missing.length) }, worker));
    return result;
  }
}
