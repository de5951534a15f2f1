import { prefixEnd } from './key-range.js';
import type { RangeCall } from './range-call.js';

/**
 * How many keys start with `prefix`, and the revision that count holds at — one small request (etcd's count_only),
 * however many keys there are. Pass `revision` to count a snapshot a paged read is reading.
 */
export async function countRange(call: RangeCall, options: { prefix: Buffer; revision?: string; signal?: AbortSignal }): Promise<{ count: number; revision: string }> {
  const response = await call(
    { key: options.prefix, range_end: prefixEnd(options.prefix), count_only: true, ...(options.revision === undefined ? {} : { revision: options.revision }) },
    options.signal,
  );
  return { count: Number(response.count), revision: response.header.revision };
}
