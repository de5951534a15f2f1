/**
 * How many keys to ask for in the next page. etcd bounds a range by key count only, while the client refuses a
 * response over gRPC's 4 MiB receive limit, so the count is derived from the bytes the previous page took:
 * pages aim at `targetBytes` (a quarter of that limit by default), never exceed `maxKeys`, and grow at most
 * twofold per page so one region of small values does not launch a huge request into a region of large ones.
 */
export interface PageBounds {
  /** Most keys in one page. */
  maxKeys: number;
  /** Bytes a page aims at; well under gRPC's 4 MiB receive limit. */
  targetBytes: number;
}

export const DEFAULT_PAGE_BOUNDS: PageBounds = { maxKeys: 1000, targetBytes: 1024 * 1024 };

/** The first page knows nothing of the values' sizes yet: it starts small and doubles from there. */
export const FIRST_PAGE_KEYS = 100;

/** Wire bytes of one key-value beyond its key and value: revisions, version and lease as varints, field tags. */
const KV_OVERHEAD_BYTES = 48;

export function kvWireBytes(kv: { key: Buffer; value: Buffer }): number {
  return kv.key.length + kv.value.length + KV_OVERHEAD_BYTES;
}

export function firstPageLimit(bounds: PageBounds): number {
  return Math.min(bounds.maxKeys, FIRST_PAGE_KEYS);
}

/** The limit after a page of `pageKeys` keys that took `pageBytes` (by `kvWireBytes`) under `limit`. */
export function nextPageLimit(limit: number, pageKeys: number, pageBytes: number, bounds: PageBounds): number {
  if (pageKeys === 0) return limit;
  const fitting = Math.floor(bounds.targetBytes / (pageBytes / pageKeys));
  return Math.max(1, Math.min(fitting, limit * 2, bounds.maxKeys));
}

/** After a page came back over the size limit: half as many keys; `undefined` when one key alone was too large. */
export function shrunkPageLimit(limit: number): number | undefined {
  return limit <= 1 ? undefined : Math.floor(limit / 2);
}
