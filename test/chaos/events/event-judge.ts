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

/** After publishing stopped, the subscribers get at most this long to be given everything they are owed. */
export const DRAIN_TIMEOUT_MS = 30_000;

/**
 * Once every fault has healed and publishing stopped: waits until `variant`'s subscribers have every event they are
 * owed and its groups have acked (or dropped after nacks) all their work — a condition, so a healthy run ends as
 * soon as the groups drain — and resolves with the moment the histories end. A run that does not drain within
 * DRAIN_TIMEOUT_MS ends anyway: its verdict then names what was never delivered or never acked.
 */
export async function drain(fleet: EventFleet, variant: EventVariantName): Promise<number> {
  await waitFor(
    `${variant} to deliver and settle everything owed`,
    () => checkEventHistory(eventHistoryOf(fleet, variant, machineClock()), eventCheckOptions(fleet)).violations.every((v) => v.kind !== 'lost'),
    { timeoutMs: DRAIN_TIMEOUT_MS, intervalMs: 500 },
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
