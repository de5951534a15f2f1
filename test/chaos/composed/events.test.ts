import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySchedule, type AppliedFault } from '../../../safety-checker/composed/apply.js';
import { describeFault, generateSchedule, type FaultSchedule } from '../../../safety-checker/composed/schedule.js';
import { SMALL_QUOTA_ARGS, spaceFaults } from '../../../safety-checker/composed/space.js';
import { formatEventViolations } from '../../../safety-checker/events/check-events.js';
import type { EventVerdict } from '../../../safety-checker/events/types.js';
import { machineClock } from '../../../safety-checker/recorder.js';
import { startCluster, type TestCluster } from '../../harness/cluster.js';
import { EVENT_VARIANT_NAMES, EVENT_VARIANTS, type EventVariantName } from '../../pubsub/broken/event-variants.js';
import { EventFleet } from '../events/event-fleet.js';
import { catchUp, eventFigures, judgeVariants, violationKinds } from '../events/event-judge.js';
import { EVENT_SHAPE } from '../events/event-workload-shape.js';
import { createRng, deriveSeed, seedFromEnv } from '../rng.js';

/**
 * The event workload on the composed-fault timeline: worker processes, each its own EtcdPubSub, publish
 * Mastra-shaped traffic (thread streams every process observes, work queues with a consumer group across processes,
 * a single-member schedule group; handlers ack after a pause and nack some) while the seed's schedule
 * (safety-checker/composed/) overlaps member kills, SIGSTOPs, blackholes, cut links delivered late, slow links, a
 * 20 s quorum loss, a NOSPACE and its operator's recovery, SIGSTOPs of worker processes and publish floods; the run
 * also SIGKILLs one worker at a seeded moment and starts a replacement. Every publish, subscription, delivery and
 * ack/nack is recorded on one clock and judged by the event checker (safety-checker/events/): the real EtcdPubSub
 * must show no violation, and each deliberately broken variant (test/pubsub/broken/event-variants.ts), riding the
 * same processes, publishes and faults, must be flagged for what it breaks. COMPOSED_SEED=<seed> replays the faults.
 */
const SEED = seedFromEnv('COMPOSED_SEED');
const seeded = `seed ${SEED} (replay: COMPOSED_SEED=${SEED})`;
/** Faults start within this span; the outage may be held past it. The composed lease run draws the same from a seed. */
const SPAN_MS = 40_000;
const WARM_UP_MS = 2000;
const SETTLE_MS = 3000;
/** After the last heal, the subscribers get this long to catch up before "never got it" reads as lost. */
const CATCH_UP_MS = 30_000;

let cluster: TestCluster;
let fleet: EventFleet;
let schedule: FaultSchedule;
let timeline: AppliedFault[] = [];
let killed = '';
let verdicts = new Map<EventVariantName, EventVerdict>();
const prefix = `composed-events/${process.pid}/leases/`;
const eventPrefix = `composed-events/${process.pid}/events/`;

beforeAll(async () => {
  console.log(`[composed-events] ${seeded}`);
  cluster = await startCluster({ extraArgs: [...SMALL_QUOTA_ARGS] });
  fleet = new EventFleet({ endpoints: cluster.endpoints(), prefix, eventPrefix, seed: SEED, variants: EVENT_VARIANT_NAMES });
  let endedAt = 0;
  try {
    await Promise.all(Array.from({ length: EVENT_SHAPE.processes }, (_, i) => fleet.start(`p${i}`, { schedule: i === 0 })));
    schedule = generateSchedule({ seed: SEED, spanMs: SPAN_MS, members: cluster.size, processes: EVENT_SHAPE.processes });
    for (const f of schedule.faults) console.log(`[composed-events] scheduled ${describeFault(f)}`);
    // The event side's own fault: a worker (not p0, whose single-member group's order is checked) SIGKILLed at a
    // seeded moment, a replacement started in its slot.
    const rng = createRng(deriveSeed(SEED, 7000));
    const killSlot = rng.int(1, EVENT_SHAPE.processes - 1);
    const killAtMs = rng.int(SPAN_MS * 0.2, SPAN_MS * 0.8);
    await fleet.publishing(true);
    await new Promise((r) => setTimeout(r, WARM_UP_MS));
    const killOne = async () => {
      await new Promise((r) => setTimeout(r, killAtMs));
      killed = fleet.inSlot(killSlot);
      console.log(`[composed-events] SIGKILL worker ${killed} at ${(killAtMs / 1000).toFixed(1)} s, then start p${EVENT_SHAPE.processes}`);
      fleet.kill(killed);
      // Started into whatever the schedule is doing (an outage, NOSPACE): it subscribes once etcd lets it.
      await fleet.start(`p${EVENT_SHAPE.processes}`, { slot: killSlot, readyTimeoutMs: 150_000 });
      await fleet.publishing(true);
    };
    const replaced = killOne();
    replaced.catch(() => {}); // awaited below, once the schedule is done: not an unhandled rejection meanwhile
    timeline = await applySchedule(schedule, { cluster, clients: [fleet.clients], space: spaceFaults(cluster) }, { now: machineClock, log: (line) => console.log(`[composed-events] ${line}`) });
    await cluster.waitHealthy(60_000);
    await replaced;
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    await fleet.publishing(false);
    endedAt = await catchUp(fleet, CATCH_UP_MS);
  } finally {
    await fleet.stop().catch(() => fleet.killAll());
  }
  verdicts = judgeVariants(fleet, EVENT_VARIANT_NAMES, endedAt);
}, 300_000);

afterAll(async () => {
  fleet?.killAll();
  await cluster?.stop();
});

describe('events on the composed-fault timeline: EtcdPubSub and its broken variants on a real cluster', () => {
  it('the real EtcdPubSub loses, reorders and doubles nothing', () => {
    expect(formatEventViolations(verdicts.get('real')?.violations ?? []), `${seeded}\n${fleet.describe()}`).toBe('no event violations');
  });

  it.each(EVENT_VARIANT_NAMES.filter((v) => v !== 'real'))('flags the broken variant %s', (variant) => {
    expect(violationKinds(verdicts.get(variant)), seeded).toEqual(expect.arrayContaining([...EVENT_VARIANTS[variant].flaggedAs]));
  });

  it('is not vacuous: every scheduled fault ran, a worker was killed, publishes succeeded and failed, events were redelivered', () => {
    expect(timeline.length, seeded).toBe(schedule.faults.length);
    expect(timeline.some((f) => f.kind === 'quorum-loss'), seeded).toBe(true);
    expect(fleet.ends.has(killed), seeded).toBe(true);
    const summary = verdicts.get('real')!.summary;
    expect(summary.publishes - summary.publishErrors, seeded).toBeGreaterThan(200);
    expect(summary.publishErrors, seeded).toBeGreaterThan(0);
    expect(summary.redeliveries, seeded).toBeGreaterThan(0);
  });

  it('prints the figures', () => {
    const kinds = [...new Set(timeline.map((f) => f.kind))].join(', ');
    console.log(
      [`composed event figures (${seeded}; 3-member etcd, ${timeline.length} faults: ${kinds}; worker ${killed} SIGKILLed):`, ...eventFigures(verdicts, fleet.warnings)].join('\n'),
    );
    expect(verdicts.size).toBe(EVENT_VARIANT_NAMES.length);
  });
});
