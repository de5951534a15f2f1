import type { IKeyValue, IRangeRequest } from 'etcd3';
import { LeaseAbortedError } from '../errors/aborted.js';
import { EtcdCompactedError } from '../errors/compacted.js';
import { LeaseArgumentRangeError } from '../errors/invalid-argument.js';
import { EtcdSizeLimitError } from '../errors/size-limit.js';
import { keyAfter, prefixEnd } from './key-range.js';
import { DEFAULT_PAGE_BOUNDS, firstPageLimit, kvWireBytes, nextPageLimit, shrunkPageLimit, type PageBounds } from './page-limit.js';
import type { RangeCall } from './range-call.js';
import { GRPC_DEFAULT_RECEIVE_BYTES } from '../transport/receive-limit.js';

export interface PagedRangeOptions {
  /** Every key starting with these bytes, in etcd's key order. */
  prefix: Buffer;
  /** Resume: only keys after this one (a key under `prefix`, e.g. the last one a previous read returned). */
  after?: Buffer;
  /**
   * The revision every page is read at. @default the first page's: the cluster's revision when the read began, so
   * the pages together are one snapshot whatever is written meanwhile.
   */
  revision?: string;
  /** Most keys per page. @default 1000 */
  maxKeys?: number;
  /** Bytes a page aims at (gRPC's default receive limit is 4 MiB). @default 1 MiB */
  targetBytes?: number;
  /** Keys and revisions only, no values. @default false */
  keysOnly?: boolean;
  /**
   * The largest key plus value any key under the prefix can hold, when the writers bound it: the first page then
   * fits `receiveLimitBytes` whatever the values weigh (page-limit.ts). @default unknown: the first page is 100 keys
   */
  maxEntryBytes?: number;
  /** The largest response the client accepts (transport/receive-limit.ts). @default gRPC's 4 MiB */
  receiveLimitBytes?: number;
  /** Ends the read: the request in flight is abandoned and the iterator rejects with `LeaseAbortedError`. */
  signal?: AbortSignal;
}

interface RangePage {
  /** At most `maxKeys`, in key order, each key once across all pages. */
  kvs: IKeyValue[];
  /** The revision the page was read at: the same for every page of one read. */
  revision: string;
}

/**
 * Reads every key under a prefix in bounded pages, all at one revision, as an async iterator: memory holds one page
 * whatever the prefix holds, and a consumer that stops early (`break`) sends no further request.
 *
 * Each page continues right after the previous page's last key. Its size adapts to the values' sizes (see
 * page-limit.ts); a page that still comes back over gRPC's receive limit is asked for again with half as many
 * keys — a smaller request, not a retry of the same one — and only a single key-value over the limit fails, with
 * `EtcdSizeLimitError`. When compaction overtakes the pinned revision the read fails with `EtcdCompactedError`:
 * the snapshot cannot be finished, only begun again.
 */
export async function* pagedRange(call: RangeCall, options: PagedRangeOptions): AsyncGenerator<RangePage, void, undefined> {
  const bounds = pageBounds(options);
  const rangeEnd = prefixEnd(options.prefix);
  let key = options.after === undefined ? options.prefix : keyAfter(options.after);
  let revision = options.revision;
  let limit = firstPageLimit(bounds);
  for (;;) {
    if (options.signal?.aborted) throw new LeaseAbortedError('range', options.signal.reason);
    const request: IRangeRequest = { key, range_end: rangeEnd, limit, keys_only: options.keysOnly === true };
    if (revision !== undefined) request.revision = revision;
    let response;
    try {
      response = await call(request, options.signal);
    } catch (error) {
      if (error instanceof EtcdSizeLimitError) {
        const smaller = shrunkPageLimit(limit, bounds.fit);
        if (smaller === undefined) throw error;
        limit = smaller;
        continue;
      }
      if (error instanceof EtcdCompactedError && revision !== undefined) throw new EtcdCompactedError(error.operation, revision, error.cause);
      throw error;
    }
    revision ??= response.header.revision;
    const kvs = response.kvs;
    if (kvs.length > 0) yield { kvs, revision };
    if (!response.more || kvs.length === 0) return;
    key = keyAfter(kvs[kvs.length - 1]!.key);
    limit = nextPageLimit(limit, kvs.length, kvs.reduce((n, kv) => n + kvWireBytes(kv), 0), bounds);
  }
}

function pageBounds(options: PagedRangeOptions): PageBounds {
  const maxKeys = options.maxKeys ?? DEFAULT_PAGE_BOUNDS.maxKeys;
  const targetBytes = options.targetBytes ?? DEFAULT_PAGE_BOUNDS.targetBytes;
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new LeaseArgumentRangeError('maxKeys', `must be a whole number ≥ 1, got ${maxKeys}`);
  if (!Number.isFinite(targetBytes) || targetBytes <= 0) throw new LeaseArgumentRangeError('targetBytes', `must be a number of bytes above 0, got ${targetBytes}`);
  if (options.maxEntryBytes === undefined) return { maxKeys, targetBytes };
  return { maxKeys, targetBytes, fit: { maxEntryBytes: options.maxEntryBytes, receiveLimitBytes: options.receiveLimitBytes ?? GRPC_DEFAULT_RECEIVE_BYTES } };
}
