import { groupLabel, groupsOf } from './owed-events.js';
import type { EventCheckOptions, EventHistory, EventViolation, RecordedDelivery, RecordedSubscription } from './types.js';

/**
 * A consumer group processes an event by one member at a time. A delivery occupies its handler from its delivery
 * until it is settled (ack or nack), and no other delivery of the same event to the group may start meanwhile —
 * unless the pubsub had a reason to offer it again:
 *
 * - the holder's process was faulted (killed, paused, cut off) while it held the event: from the fault's start
 *   the group may take it over (the holder cannot act, and a pubsub cannot tell slow from dead);
 * - the delivery outlived the pubsub's `inFlightTimeoutMs`: the pubsub nacks it on the handler's behalf;
 * - the holder's subscription ended (unsubscribe) `leaveGraceMs` before (EtcdPubSub: its `deadlineMs`).
 *
 * An unsettled delivery of a process that lived to the end occupies its handler until the history's end.
 */
export function checkGroupExclusivity(history: EventHistory, options: EventCheckOptions & { leaveGraceMs?: number }): EventViolation[] {
  const violations: EventViolation[] = [];
  for (const group of groupsOf(history)) {
    const members = new Map(group.members.map((m) => [m.subscriber, m]));
    const byEvent = new Map<string, RecordedDelivery[]>();
    for (const d of history.deliveries) {
      if (!members.has(d.subscriber)) continue;
      byEvent.set(d.eventKey, [...(byEvent.get(d.eventKey) ?? []), d]);
    }
    for (const [eventKey, deliveries] of byEvent) {
      const spans = deliveries
        .map((d) => ({ d, end: occupiedUntil(d, members.get(d.subscriber) as RecordedSubscription, history, options) }))
        .sort((a, b) => a.d.deliveredAt - b.d.deliveredAt);
      for (let i = 1; i < spans.length; i++) {
        const later = spans[i] as (typeof spans)[number];
        const earlier = spans.slice(0, i).find((s) => s.end > later.d.deliveredAt);
        if (earlier === undefined) continue;
        violations.push({
          kind: 'concurrent',
          topic: group.topic,
          subscriber: groupLabel(group.group),
          eventKeys: [eventKey],
          detail:
            `${groupLabel(group.group)}: ${eventKey} delivered to ${later.d.subscriber} at ${ms(later.d.deliveredAt)} (attempt ${later.d.attempt}) ` +
            `while ${earlier.d.subscriber} still held it (attempt ${earlier.d.attempt}, delivered at ${ms(earlier.d.deliveredAt)}, ` +
            `${earlier.d.settledAt === undefined ? 'never settled' : `settled at ${ms(earlier.d.settledAt)}`})`,
        });
        break;
      }
    }
  }
  return violations;
}

function occupiedUntil(d: RecordedDelivery, member: RecordedSubscription, history: EventHistory, options: EventCheckOptions & { leaveGraceMs?: number }): number {
  let end = d.settledAt ?? history.endedAt;
  for (const fault of options.faults ?? []) {
    if (fault.process === member.process && fault.start < end && (fault.end ?? Number.POSITIVE_INFINITY) > d.deliveredAt) {
      end = Math.max(d.deliveredAt, Math.min(end, fault.start));
    }
  }
  if ((options.inFlightTimeoutMs ?? 0) > 0) end = Math.min(end, d.deliveredAt + (options.inFlightTimeoutMs as number));
  if (member.endedAt !== undefined && options.leaveGraceMs !== undefined) end = Math.min(end, Math.max(d.deliveredAt, member.endedAt + options.leaveGraceMs));
  return end;
}

const ms = (t: number): string => `${Math.round(t)} ms`;
