/**
 * How many keys to ask for in the next page. etcd bounds a range by key count only, while a client refuses a
 * response over its gRPC receive limit (4 MiB unless raised, as the package's own clients are), so the count is
 * derived from the bytes the previous page took: pages aim at `targetBytes` (a quarter of gRPC's default limit),
 * never exceed `maxKeys`, and grow at most twofold per page so one region of small values does not launch a huge
 * request into a region of large ones.
 *
 * The first page knows nothing of the sizes. When the reader knows the largest key-value the prefix can hold and
 * the client's receive limit (`fit`), the first page — and a page asked for again after one came back too large —
 * holds no more keys than fit that limit even if every one is that large. A read then never fails on size at its
 * start; later pages follow the sizes seen, and only a prefix whose values jump from small to large within one
 * page's growth can still see one oversize page (asked for again at once with a count that fits for sure). This
 * matters most for a client a caller passes in: etcd3's default policy resends a refused response three times and
 * then opens that member's breaker for 5 s, stopping every call to it.
 */
export interface PageBounds {
  /** Most keys in one page. */
  maxKeys: number;
  /** Bytes a page aims at; well under gRPC's 4 MiB receive limit. */
  targetBytes: number;
  fit?: PageFit;
}

/** What bounds a page whatever the values weigh. */
interface PageFit {
  /** The largest key plus value any key under the prefix can hold. */
  maxEntryBytes: number;
  /** The largest response the client accepts. */
  receiveLimitBytes: number;
}

export const DEFAULT_PAGE_BOUNDS: PageBounds = { maxKeys: 1000, targetBytes: 1024 * 1024 };

/** The first page knows nothing of the values' sizes yet: it starts small and doubles from there. */
const FIRST_PAGE_KEYS = 100;

/** Wire bytes of one key-value beyond its key and value: revisions, version and lease as varints, field tags. */
const KV_OVERHEAD_BYTES = 48;
/** A response's bytes beyond its key-values: header, framing. */
const RESPONSE_OVERHEAD_BYTES = 64 * 1024;

export function kvWireBytes(kv: { key: Buffer; value: Buffer }): number {
  return kv.key.length + kv.value.length + KV_OVERHEAD_BYTES;
}

export function firstPageLimit(bounds: PageBounds): number {
  const keys = Math.min(bounds.maxKeys, FIRST_PAGE_KEYS);
  return bounds.fit === undefined ? keys : Math.min(keys, worstCaseKeys(bounds.fit));
}

/** Keys of a page that fits the receive limit even if every one holds `maxEntryBytes`; at least one. */
export function worstCaseKeys(fit: PageFit): number {
  return Math.max(1, Math.floor((fit.receiveLimitBytes - RESPONSE_OVERHEAD_BYTES) / (fit.maxEntryBytes + KV_OVERHEAD_BYTES)));
}

/** The limit after a page of `pageKeys` keys that took `pageBytes` (by `kvWireBytes`) under `limit`. */
export function nextPageLimit(limit: number, pageKeys: number, pageBytes: number, bounds: PageBounds): number {
  if (pageKeys === 0) return limit;
  const fitting = Math.floor(bounds.targetBytes / (pageBytes / pageKeys));
  return Math.max(1, Math.min(fitting, limit * 2, bounds.maxKeys));
}

/**
 * After a page came back over the size limit: half as many keys, and no more than fit for sure (`fit`);
 * `undefined` when one key alone was too large.
 */
export function shrunkPageLimit(limit: number, fit?: PageFit): number | undefined {
  if (limit <= 1) return undefined;
  const half = Math.floor(limit / 2);
  return fit === undefined ? half : Math.min(half, worstCaseKeys(fit));
}
