import type { KeyValue } from '../../operations/etcd-txn.js';
import { decodeClaim } from './claim-txns.js';
import { decodeMember } from './group-state.js';

/**
 * Where a member joining a consumer group starts. Mastra's rule: `startFrom` applies to a new group only; an existing
 * group keeps its checkpoint, whatever the joining member asks for.
 *
 * On etcd a group's checkpoint is its claims: a retained event of the topic without a claim of the group is one the
 * group has not taken yet, and the group's *floor* says which events are the group's at all — those created above
 * it. A group created with `'latest'` has the revision its first member joined at as its floor, one created with
 * `'earliest'` has 0 (every retained event). Every member key and claim the group writes carries the floor, so a
 * member that joins later — another process, or the same one after a restart — takes the group's floor, not its own.
 *
 * A group exists while etcd holds any of its keys under the topic: a member key (on a live process's session lease)
 * or a claim (on the retention lease of the event it is about, acked or not). It is forgotten once it has no member
 * left and every event it took has expired, or when `clearTopic` deleted its claims and it has no member; a join after
 * that starts a new group.
 *
 * @param members the group's member keys at the join's revision, other than the joining member's own
 * @param claims  the group's claims at that revision
 * @param joinedAt the revision the join watches from: the floor of a new group that starts from `'latest'`
 * @returns the floor: events created at or below it are not the group's
 */
export function joinFloor(members: KeyValue[], claims: KeyValue[], startFrom: 'earliest' | 'latest', joinedAt: string): string {
  const floors = [...members.map((kv) => decodeMember(kv.value).floor), ...claims.map((kv) => decodeClaim(kv.value)?.f)];
  if (floors.length === 0) return startFrom === 'latest' ? joinedAt : '0';
  // Keys written without one (before floors existed) count as 0. Members that disagree (two processes created the
  // group at once, asking for different starts) are settled towards delivering: the lowest floor wins.
  return floors.map((floor) => BigInt(floor ?? '0')).reduce((low, floor) => (floor < low ? floor : low)).toString();
}
