import type { Etcd3 } from 'etcd3';
import type { KeyValue } from '../../operations/etcd-txn.js';
import type { CallRunner } from '../../transport/call-runner.js';
import type { CallScope } from '../../transport/call-scope.js';
import { prefixEnd } from '../keys/event-keys.js';

/** Keys per range request: each page costs etcd O(page), whatever the size of the range. */
const PAGE = 1000;

export interface PrefixSnapshot {
  /** Every key under the prefix at the revision, ordered by (mod revision, key): the order watchers saw them in. */
  kvs: KeyValue[];
  /** Bytes of the oldest entries left out to stay within `maxBytes`. */
  skippedBytes: number;
  skipped: number;
}

/**
 * Reads everything under `prefix` as it was at `revision` (linearizable, in key-ordered pages) and orders it the way a
 * watch delivers it: by mod revision, ties (events of one batch) by key. Above `maxBytes`, the oldest entries are
 * left out. A compacted `revision` rejects with etcd3's `GRPCOutOfRangeError`; the caller starts over from a newer one.
 * Without a `revision`, the first page's revision holds for every page (one consistent snapshot).
 */
export async function readPrefix(
  client: Etcd3,
  runner: CallRunner,
  scope: CallScope,
  prefix: Buffer,
  revision: string | undefined,
  maxBytes: number,
): Promise<PrefixSnapshot> {
  const end = prefixEnd(prefix);
  const kvs: KeyValue[] = [];
  let from = prefix;
  for (;;) {
    const page = await runner.attempts(scope, ({ deadline }) =>
      client.kv.range({ key: from, range_end: end, revision, limit: PAGE }, { deadline }),
    );
    revision ??= page.header.revision;
    const found = (page.kvs ?? []) as unknown as KeyValue[];
    kvs.push(...found);
    if (!page.more || found.length === 0) break;
    from = Buffer.concat([found.at(-1)!.key, Buffer.from([0])]);
  }
  kvs.sort(byRevisionThenKey);
  let bytes = kvs.reduce((n, kv) => n + kv.key.length + kv.value.length, 0);
  let skipped = 0;
  let skippedBytes = 0;
  while (bytes > maxBytes && skipped < kvs.length) {
    const size = kvs[skipped]!.key.length + kvs[skipped]!.value.length;
    bytes -= size;
    skippedBytes += size;
    skipped++;
  }
  return { kvs: skipped > 0 ? kvs.slice(skipped) : kvs, skipped, skippedBytes };
}

export function byRevisionThenKey(a: KeyValue, b: KeyValue): number {
  const byMod = BigInt(a.mod_revision) - BigInt(b.mod_revision);
  if (byMod !== 0n) return byMod < 0n ? -1 : 1;
  return Buffer.compare(a.key, b.key);
}
