import type { EtcdCore } from '../../core/etcd-core.js';
import type { KeyValue } from '../../operations/etcd-txn.js';
import type { CallScope } from '../../transport/call-scope.js';
import type { EventKeys } from '../keys/event-keys.js';
import { byRevisionThenKey, readPrefix } from '../watch/range-read.js';

interface GroupSnapshot {
  /** Members, claims and events together, in the order a watch delivers them: by mod revision, then key. */
  kvs: KeyValue[];
  /** Every member key of the group. */
  members: KeyValue[];
  /** Every claim of the group. */
  claims: KeyValue[];
  /** Every group's backlog key of the topic. */
  backlogs: KeyValue[];
  /** Events left out, the oldest first, to stay within `maxReplayBytes`. */
  skipped: number;
  skippedBytes: number;
}

/**
 * What one consumer group knows of its topic at `revision`, read in pages (paged-range.ts), all three parts pinned to
 * that revision so that together they are one snapshot:
 *
 * - every group's backlog key (backlog.ts): which groups the topic's work waits for;
 * - every member key of the group and every claim of the group, whatever their size. A member key missing from the
 *   read would look like a dead member, and a joining member would take over the live member's claims ("member
 *   lost"): duplicate deliveries, and the wrong preferred members. Member keys are the oldest keys under a topic, so
 *   a read cut from the oldest end loses them first;
 * - the retained events, the oldest left out above `maxReplayBytes` (as a fan-out replay does).
 *
 * Claims of other groups are not read. A compacted `revision` rejects with `EtcdCompactedError`.
 */
export async function readGroupSnapshot(
  core: EtcdCore,
  scope: CallScope,
  keys: EventKeys,
  where: { topic: string; group: string; revision: string; maxReplayBytes: number },
): Promise<GroupSnapshot> {
  const { topic, group, revision, maxReplayBytes } = where;
  const read = (prefix: Buffer, maxBytes: number) => readPrefix(core.client, core.runner, scope, prefix, revision, maxBytes);
  const [members, claims, backlogs, events] = await Promise.all([
    read(keys.groupMembers(topic, group), Number.POSITIVE_INFINITY),
    read(keys.groupClaims(topic, group), Number.POSITIVE_INFINITY),
    read(keys.backlogs(topic), Number.POSITIVE_INFINITY),
    read(keys.events(topic), maxReplayBytes),
  ]);
  return {
    kvs: [...members.kvs, ...claims.kvs, ...backlogs.kvs, ...events.kvs].sort(byRevisionThenKey),
    members: members.kvs,
    claims: claims.kvs,
    backlogs: backlogs.kvs,
    skipped: events.skipped,
    skippedBytes: events.skippedBytes,
  };
}
