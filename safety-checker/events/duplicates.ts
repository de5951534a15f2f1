import { groupLabel } from './owed-events.js';
import type { EventCheckOptions, EventViolation, RecordedDelivery, RecordedSubscription } from './types.js';

/**
 * At-least-once allows an event to come again — after a nack, an in-flight timeout, a member's loss, an ack that
 * failed — and always as a new attempt. What it does not allow, per fan-out subscription and per consumer group:
 *
 * - the same `deliveryAttempt` twice (`attemptsIncrease`): for a group, two members each claiming the event as the
 *   same attempt — a double claim;
 * - a delivery after an ack whose own promise resolved: the pubsub said the event was settled, then offered it
 *   again.
 *
 * Redeliveries that break neither rule are counted, not flagged.
 */
export function checkDuplicates(
  subscriptions: readonly RecordedSubscription[],
  deliveries: readonly RecordedDelivery[],
  options: EventCheckOptions,
): { violations: EventViolation[]; redeliveries: number } {
  const byId = new Map(subscriptions.map((s) => [s.subscriber, s]));
  const streams = new Map<string, { topic: string; label: string; deliveries: RecordedDelivery[] }>();
  for (const d of deliveries) {
    const s = byId.get(d.subscriber);
    const label = s?.group === undefined ? d.subscriber : groupLabel(s.group);
    const id = `${d.topic}\u0000${label}\u0000${d.eventKey}`;
    const stream = streams.get(id) ?? { topic: d.topic, label, deliveries: [] };
    stream.deliveries.push(d);
    streams.set(id, stream);
  }

  const violations: EventViolation[] = [];
  let redeliveries = 0;
  for (const { topic, label, deliveries: ofEvent } of streams.values()) {
    ofEvent.sort((a, b) => a.deliveredAt - b.deliveredAt);
    redeliveries += ofEvent.length - 1;
    const problem = duplicateIn(ofEvent, options.attemptsIncrease ?? true);
    if (problem) violations.push({ kind: 'duplicate', topic, subscriber: label, eventKeys: [ofEvent[0]?.eventKey as string], detail: `${label}: ${problem}` });
  }
  return { violations, redeliveries };
}

function duplicateIn(deliveries: readonly RecordedDelivery[], attemptsIncrease: boolean): string | undefined {
  const attempts = new Map<number, RecordedDelivery>();
  let confirmedAck: RecordedDelivery | undefined;
  for (const d of deliveries) {
    if (confirmedAck !== undefined && (confirmedAck.settledAt as number) < d.deliveredAt) {
      return `${d.eventKey} delivered again at ${Math.round(d.deliveredAt)} ms (attempt ${d.attempt}, to ${d.subscriber}) after ${confirmedAck.subscriber}'s ack resolved at ${Math.round(confirmedAck.settledAt as number)} ms`;
    }
    const same = attempts.get(d.attempt);
    if (attemptsIncrease && same !== undefined) {
      return `${d.eventKey} delivered twice as attempt ${d.attempt}: to ${same.subscriber} at ${Math.round(same.deliveredAt)} ms and to ${d.subscriber} at ${Math.round(d.deliveredAt)} ms`;
    }
    attempts.set(d.attempt, d);
    if (d.settlement === 'ack' && d.settleOutcome === 'ok' && confirmedAck === undefined) confirmedAck = d;
  }
  return undefined;
}
