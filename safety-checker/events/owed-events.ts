import type { EventCheckOptions, EventHistory, RecordedPublish, RecordedSubscription } from './types.js';

/**
 * Which events a subscription, or a consumer group, is owed: what the check for losses holds them to.
 *
 * A subscription is owed only once it is live (`subscribe` resolved) and only while it lasts to the end of the
 * history (one that unsubscribed, or whose process died, was owed nothing it had not got by then). It is owed
 * every publish that resolved `ok` on its topic and was sent after it went live; an `'earliest'` subscription also
 * every one still retained when it subscribed (`retentionMs`), including those in flight across its subscribe.
 * A publish that threw is owed to no one: it may never have been committed.
 *
 * A group is owed what its first live member's `startFrom` makes the group's (an existing group keeps its
 * checkpoint, so later members' `startFrom` changes nothing), as long as one of its members lasts to the end.
 */
export function owedTo(subscription: RecordedSubscription, publishes: readonly RecordedPublish[], options: EventCheckOptions): RecordedPublish[] {
  const { liveAt } = subscription;
  if (liveAt === undefined) return [];
  const retentionMs = options.retentionMs ?? Number.POSITIVE_INFINITY;
  return publishes.filter(
    (p) =>
      p.topic === subscription.topic &&
      p.outcome === 'ok' &&
      (p.sentAt >= liveAt || (subscription.startFrom === 'earliest' && p.returnedAt + retentionMs >= subscription.sentAt)),
  );
}

export interface GroupOf {
  readonly topic: string;
  readonly group: string;
  readonly members: readonly RecordedSubscription[];
}

/** The history's consumer groups, each with its member subscriptions in subscribe order. */
export function groupsOf(history: EventHistory): GroupOf[] {
  const groups = new Map<string, GroupOf & { members: RecordedSubscription[] }>();
  for (const s of history.subscriptions) {
    if (s.group === undefined) continue;
    const id = `${s.topic}\u0000${s.group}`;
    const entry = groups.get(id) ?? { topic: s.topic, group: s.group, members: [] };
    entry.members.push(s);
    groups.set(id, entry);
  }
  for (const g of groups.values()) g.members.sort((a, b) => a.sentAt - b.sentAt);
  return [...groups.values()];
}

/** What a group is owed; nothing when no member lasts to the end of the history. */
export function owedToGroup(group: GroupOf, publishes: readonly RecordedPublish[], options: EventCheckOptions): RecordedPublish[] {
  const first = group.members.find((m) => m.liveAt !== undefined);
  const lasting = group.members.some((m) => m.liveAt !== undefined && m.endedAt === undefined);
  return first === undefined || !lasting ? [] : owedTo(first, publishes, options);
}

/** The name a group's verdicts carry in place of a subscriber. */
export const groupLabel = (group: string): string => `group:${group}`;
