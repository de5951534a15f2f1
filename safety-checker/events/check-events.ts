import { checkOrder } from './delivery-order.js';
import { checkDuplicates } from './duplicates.js';
import { checkGroupExclusivity } from './group-exclusivity.js';
import { groupLabel, groupsOf, owedTo, owedToGroup } from './owed-events.js';
import type { EventCheckOptions, EventHistory, EventSummary, EventVerdict, EventViolation, RecordedDelivery } from './types.js';
import { validateEventHistory } from './validate-events.js';

/**
 * The verdict on a recorded event history (docs/testing.md, "The event chaos run"):
 *
 * - **nothing lost**: every publish that resolved reaches every fan-out subscription owed it at least once, and
 *   every consumer group owed it processes it until a member acks it (or nacks it `maxDeliveryAttempts` times);
 * - **in topic order**: see `checkOrder`;
 * - **no duplicates beyond at-least-once**: see `checkDuplicates`;
 * - **one member at a time**: see `checkGroupExclusivity`.
 *
 * Run it after faults have healed and the subscribers have been given time to catch up: the loss check reads
 * "never got it" as "lost".
 */
export function checkEventHistory(history: EventHistory, options: EventCheckOptions & { leaveGraceMs?: number } = {}): EventVerdict {
  validateEventHistory(history);
  const violations: EventViolation[] = [];
  const latencies: number[] = [];

  const delivered = new Map<string, RecordedDelivery[]>();
  for (const d of history.deliveries) {
    const id = `${d.subscriber}\u0000${d.eventKey}`;
    delivered.set(id, [...(delivered.get(id) ?? []), d]);
  }

  for (const s of history.subscriptions) {
    if (s.group !== undefined || s.endedAt !== undefined) continue;
    for (const p of owedTo(s, history.publishes, options)) {
      const got = delivered.get(`${s.subscriber}\u0000${p.eventKey}`);
      if (got === undefined) {
        violations.push({ kind: 'lost', topic: s.topic, subscriber: s.subscriber, eventKeys: [p.eventKey], detail: `${s.subscriber} never got ${p.eventKey} (published by ${p.publisher}, resolved at ${Math.round(p.returnedAt)} ms)` });
      } else if (p.sentAt >= (s.liveAt as number)) {
        latencies.push(Math.max(0, Math.min(...got.map((d) => d.deliveredAt)) - p.returnedAt));
      }
    }
  }

  const cap = options.maxDeliveryAttempts ?? 5;
  let droppedAfterNacks = 0;
  for (const group of groupsOf(history)) {
    const members = new Set(group.members.map((m) => m.subscriber));
    for (const p of owedToGroup(group, history.publishes, options)) {
      const got = history.deliveries.filter((d) => d.eventKey === p.eventKey && members.has(d.subscriber));
      if (got.some((d) => d.settlement === 'ack')) continue;
      if (cap > 0 && got.some((d) => d.settlement === 'nack' && d.attempt >= cap)) {
        droppedAfterNacks++;
        continue;
      }
      const seen = got.length === 0 ? 'never delivered' : `delivered ${got.length}× (attempts ${got.map((d) => d.attempt).join(', ')}) and never acked`;
      violations.push({ kind: 'lost', topic: group.topic, subscriber: groupLabel(group.group), eventKeys: [p.eventKey], detail: `${groupLabel(group.group)}: ${p.eventKey} ${seen}` });
    }
  }

  violations.push(...checkOrder(history.subscriptions, history.deliveries, history.publishes, options));
  const duplicates = checkDuplicates(history.subscriptions, history.deliveries, options);
  violations.push(...duplicates.violations);
  violations.push(...checkGroupExclusivity(history, options));

  const summary: EventSummary = {
    publishes: history.publishes.length,
    publishErrors: history.publishes.filter((p) => p.outcome === 'error').length,
    deliveries: history.deliveries.length,
    redeliveries: duplicates.redeliveries,
    droppedAfterNacks,
    deliveryLatencyMs: percentiles(latencies),
  };
  return { violations, summary };
}

function percentiles(values: number[]): EventSummary['deliveryLatencyMs'] {
  if (values.length === 0) return { p50: 0, p99: 0, max: 0, count: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] as number, count: sorted.length };
}

/** One line per violation, grouped by kind: what a failing run prints. */
export function formatEventViolations(violations: readonly EventViolation[]): string {
  if (violations.length === 0) return 'no event violations';
  const kinds = ['lost', 'order', 'duplicate', 'concurrent'] as const;
  return kinds
    .map((kind) => violations.filter((v) => v.kind === kind))
    .filter((of) => of.length > 0)
    .map((of) => [`${of[0]?.kind} (${of.length}):`, ...of.map((v) => `  [${v.topic}] ${v.detail}`)].join('\n'))
    .join('\n');
}
