import { checkEventHistory } from '../../../safety-checker/events/check-events.js';
import { assembleEventHistory } from '../../../safety-checker/events/event-recorder.js';
import type { EventCheckOptions, EventHistory, EventVerdict } from '../../../safety-checker/events/types.js';
import { machineClock } from '../../../safety-checker/recorder.js';
import type { EventVariantName } from '../../pubsub/broken/event-variants.js';
import { waitFor } from '../../support/wait.js';
import type { EventFleet } from './event-fleet.js';
import { EVENT_PUBSUB_OPTIONS } from './event-workload-shape.js';

/** What the checker is told of the workers' EtcdPubSub, and the processes the run faulted. */
export const eventCheckOptions = (fleet: EventFleet): EventCheckOptions & { leaveGraceMs: number } => ({
  retentionMs: EVENT_PUBSUB_OPTIONS.retentionMs,
  maxDeliveryAttempts: EVENT_PUBSUB_OPTIONS.maxDeliveryAttempts,
  faults: fleet.faults,
  // An unsubscribing member waits its deadline for the events it holds.
  leaveGraceMs: EVENT_PUBSUB_OPTIONS.deadlineMs,
});

/** One variant's history: the shared publishes and its own subscriptions and deliveries. */
export const eventHistoryOf = (fleet: EventFleet, variant: EventVariantName, endedAt: number): EventHistory =>
  assembleEventHistory([...fleet.publishes, ...(fleet.records.get(variant) ?? [])], endedAt, fleet.ends);

/**
 * Once every fault has healed and publishing stopped: waits (up to `timeoutMs`) until the real variant's subscribers
 * have everything they are owed — a condition, so a fast run ends fast — and resolves with the moment the histories
 * end. A run that never catches up ends anyway: its verdict then names what was never delivered.
 */
export async function catchUp(fleet: EventFleet, timeoutMs: number): Promise<number> {
  await waitFor(
    'the real EtcdPubSub to deliver everything owed',
    () => checkEventHistory(eventHistoryOf(fleet, 'real', machineClock()), eventCheckOptions(fleet)).violations.every((v) => v.kind !== 'lost'),
    { timeoutMs, intervalMs: 1000 },
  ).catch(() => undefined);
  return machineClock();
}

export function judgeVariants(fleet: EventFleet, variants: readonly EventVariantName[], endedAt: number): Map<EventVariantName, EventVerdict> {
  return new Map(variants.map((v) => [v, checkEventHistory(eventHistoryOf(fleet, v, endedAt), eventCheckOptions(fleet))]));
}

/** The violation kinds of a verdict, sorted, each once. */
export const violationKinds = (verdict: EventVerdict | undefined): string[] => [...new Set(verdict?.violations.map((v) => v.kind))].sort();

/** One line per variant (publishes, deliveries, violations by kind), the real one's latency, EtcdPubSub's warnings. */
export function eventFigures(verdicts: ReadonlyMap<EventVariantName, EventVerdict>, warnings: readonly string[]): string[] {
  const lines: string[] = [];
  for (const [variant, verdict] of verdicts) {
    const s = verdict.summary;
    const counts = (['lost', 'order', 'duplicate', 'concurrent'] as const).map((k) => `${k} ${verdict.violations.filter((v) => v.kind === k).length}`).join(', ');
    lines.push(
      `  ${variant.padEnd(16)} publishes ${s.publishes} (${s.publishErrors} failed), deliveries ${s.deliveries} (${s.redeliveries} redeliveries, ${s.droppedAfterNacks} dropped after nacks); violations: ${counts}`,
    );
  }
  const latency = verdicts.get('real')?.summary.deliveryLatencyMs;
  if (latency) lines.push(`  real fan-out latency, publish resolved → delivered: p50 ${latency.p50.toFixed(0)} ms, p99 ${latency.p99.toFixed(0)} ms, max ${latency.max.toFixed(0)} ms`);
  lines.push(`  EtcdPubSub warnings: ${warnings.length}${warnings.length > 0 ? ` (first: ${warnings[0]})` : ''}`);
  return lines;
}
