import type { Etcd3 } from 'etcd3';
import type { KeyValue } from '../../operations/etcd-txn.js';
import { pagedRange } from '../../reads/paged-range.js';
import type { RangeCall } from '../../reads/range-call.js';
import type { CallRunner } from '../../transport/call-runner.js';
import type { CallScope } from '../../transport/call-scope.js';
import { receiveLimitOf } from '../../transport/receive-limit.js';
import { MAX_EVENT_BYTES_LIMIT } from '../resolve-options.js';

interface PrefixSnapshot {
  /** Every key under the prefix at the revision, ordered by (mod revision, key): the order watchers saw them in. */
  kvs: KeyValue[];
  /** Bytes of the oldest entries left out to stay within `maxBytes`. */
  skippedBytes: number;
  skipped: number;
}

/**
 * Reads everything under `prefix` as it was at `revision` (linearizable, in pages bounded by keys and bytes, so a
 * topic of large events never asks for a response over the client's gRPC receive limit) and orders it the way a watch delivers it: by
 * mod revision, ties (events of one batch) by key. Above `maxBytes`, the oldest entries are left out. A compacted
 * `revision` rejects with `EtcdCompactedError`; the caller starts over from a newer one. Without a `revision`, the
 * first page's revision holds for every page (one consistent snapshot). Every request runs inside `scope`.
 */
export async function readPrefix(
  client: Etcd3,
  runner: CallRunner,
  scope: CallScope,
  prefix: Buffer,
  revision: string | undefined,
  maxBytes: number,
): Promise<PrefixSnapshot> {
  const call: RangeCall = (request) => runner.attempts(scope, ({ deadline }) => client.kv.range(request, { deadline }));
  const kvs: KeyValue[] = [];
  // Every event is at most MAX_EVENT_BYTES_LIMIT whoever wrote it (claims and member keys are small), so no page
  // can come back over the client's receive limit and fail the read (page-limit.ts).
  const sized = { maxEntryBytes: MAX_EVENT_BYTES_LIMIT, receiveLimitBytes: receiveLimitOf(client) };
  for await (const page of pagedRange(call, { prefix, revision, ...sized })) kvs.push(...(page.kvs as unknown as KeyValue[]));
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

/**
 * Topic order of events read back: by creation, then key (one batch). An event of a consumer group's topic is written
 * again when its group finishes it (moved back to a retention lease, groups/backlog.ts): its mod revision moves, its
 * place does not.
 */
export function byCreationThenKey(a: KeyValue, b: KeyValue): number {
  const byCreate = BigInt(a.create_revision) - BigInt(b.create_revision);
  if (byCreate !== 0n) return byCreate < 0n ? -1 : 1;
  return Buffer.compare(a.key, b.key);
}
