import type { EventHistory } from './types.js';

/**
 * A recorded event history is malformed (a delivery of a subscription nobody recorded, a return before its send).
 * Raised before any verdict, as the lease checker's `InvalidHistoryError` is: a verdict on a garbled history would
 * pass or fail for the wrong reason.
 */
export class InvalidEventHistoryError extends TypeError {
  readonly code = 'EHISTORY_INVALID' as const;

  constructor(message: string) {
    super(message);
    this.name = 'InvalidEventHistoryError';
  }
}

export function validateEventHistory(history: EventHistory): void {
  const fail = (where: string, message: string): never => {
    throw new InvalidEventHistoryError(`${where}: ${message}`);
  };
  if (!Number.isFinite(history.endedAt)) fail('endedAt', `must be a finite number, got ${String(history.endedAt)}`);
  const keys = new Set<string>();
  history.publishes.forEach((p, i) => {
    if (typeof p.eventKey !== 'string' || p.eventKey === '') fail(`publishes[${i}].eventKey`, 'must be a non-empty string');
    if (keys.has(p.eventKey)) fail(`publishes[${i}].eventKey`, `${p.eventKey} is published twice: event keys must be unique`);
    keys.add(p.eventKey);
    if (!(p.returnedAt >= p.sentAt)) fail(`publishes[${i}].returnedAt`, `${p.returnedAt} is before sentAt ${p.sentAt}`);
    if (p.outcome !== 'ok' && p.outcome !== 'error') fail(`publishes[${i}].outcome`, `must be 'ok' or 'error', got ${String(p.outcome)}`);
  });
  const subscribers = new Map<string, string>();
  history.subscriptions.forEach((s, i) => {
    if (subscribers.has(s.subscriber)) fail(`subscriptions[${i}].subscriber`, `${s.subscriber} is recorded twice`);
    subscribers.set(s.subscriber, s.topic);
    if (s.liveAt !== undefined && s.liveAt < s.sentAt) fail(`subscriptions[${i}].liveAt`, `${s.liveAt} is before sentAt ${s.sentAt}`);
  });
  history.deliveries.forEach((d, i) => {
    const topic = subscribers.get(d.subscriber);
    if (topic === undefined) fail(`deliveries[${i}].subscriber`, `${d.subscriber} has no recorded subscription`);
    if (topic !== d.topic) fail(`deliveries[${i}].topic`, `${d.topic} is not ${d.subscriber}'s topic (${String(topic)})`);
    if (!Number.isInteger(d.attempt) || d.attempt < 1) fail(`deliveries[${i}].attempt`, `must be an integer ≥ 1, got ${String(d.attempt)}`);
    if (d.settledAt !== undefined && d.settledAt < d.deliveredAt) fail(`deliveries[${i}].settledAt`, `${d.settledAt} is before deliveredAt ${d.deliveredAt}`);
    if ((d.settlement === 'none') !== (d.settledAt === undefined)) fail(`deliveries[${i}].settlement`, `'${d.settlement}' does not match settledAt ${String(d.settledAt)}`);
  });
}
