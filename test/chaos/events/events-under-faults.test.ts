import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatEventViolations } from '../../../safety-checker/events/check-events.js';
import type { EventVerdict } from '../../../safety-checker/events/types.js';
import { machineClock } from '../../../safety-checker/recorder.js';
import { EVENT_VARIANT_NAMES, EVENT_VARIANTS, type EventVariantName } from '../../pubsub/broken/event-variants.js';
import { startCluster, type TestCluster } from '../../harness/cluster.js';
import { cutClientLink, killLeader, loseQuorum, pauseFollower, pauseLeader, runFaults, type FaultStep, type FaultWindow } from '../faults.js';
import type { RunningWorkload } from '../workload.js';
import { createRng, deriveSeed, runSeed } from '../rng.js';
import { EventFleet } from './event-fleet.js';
import { catchUp, eventFigures, judgeVariants, violationKinds } from './event-judge.js';
import { EVENT_SHAPE } from './event-workload-shape.js';

/**
 * The event chaos run: worker processes, each its own EtcdPubSub, publish Mastra-shaped traffic (thread streams
 * observed by every process, shared work queues with a consumer group across processes, a single-member schedule
 * group) while the harness kills the leader, SIGSTOPs members, cuts the leader's client link (what was sent into it
 * lands late), SIGSTOPs and SIGKILLs worker processes and takes quorum away for longer than a call's deadline and a
 * group session's TTL. Every publish, subscription, delivery and ack/nack is recorded on one clock and judged by the
 * event checker (safety-checker/events/): the real EtcdPubSub must show no violation, and each deliberately broken
 * variant (test/pubsub/broken/event-variants.ts), riding the same processes, publishes and faults, must be flagged
 * for what it breaks. A failure names the seed: CHAOS_SEED=<seed> replays its choices.
 */
const SEED = runSeed();
const seeded = `seed ${SEED} (replay: CHAOS_SEED=${SEED})`;
const HOLD_MS = 3000;
const SETTLE_MS = 2000;
/** Longer than a call's deadline (5 s) and three group-session TTLs (3 s): as an outage of a real cluster is. */
const QUORUM_HOLD_MS = 15_000;
/** A worker stopped longer than its group session's TTL: its claimed events move to another member. */
const SUSPEND_MS = 5000;
/** After the last heal, subscribers get this long to catch up before "never got it" reads as lost. */
const CATCH_UP_MS = 30_000;

let cluster: TestCluster;
let fleet: EventFleet;
let faults: FaultWindow[] = [];
let verdicts = new Map<EventVariantName, EventVerdict>();
let endedAt = 0;
const prefix = `event-chaos/${process.pid}/leases/`;
const eventPrefix = `event-chaos/${process.pid}/events/`;

const workerFault = (name: string, inject: () => Promise<() => Promise<void>>, holdMs = HOLD_MS): FaultStep => ({
  name,
  scope: 'client',
  hitsLeader: false,
  holdMs,
  inject,
});

beforeAll(async () => {
  console.log(`[event-chaos] ${seeded}`);
  cluster = await startCluster();
  fleet = new EventFleet({ endpoints: cluster.endpoints(), prefix, eventPrefix, seed: SEED, variants: EVENT_VARIANT_NAMES });
  try {
    await Promise.all(Array.from({ length: EVENT_SHAPE.processes }, (_, i) => fleet.start(`p${i}`, { schedule: i === 0 })));
    const steps: FaultStep[] = [
      killLeader,
      pauseLeader,
      pauseFollower,
      cutClientLink,
      // p0 hosts the single-member schedule group: its backlog builds up while it is stopped.
      workerFault(`SIGSTOP worker p0 for ${SUSPEND_MS / 1000} s`, async () => {
        fleet.pause('p0');
        return async () => fleet.resume('p0');
      }, SUSPEND_MS),
      workerFault('SIGKILL worker p2, then start a new worker p3', async () => {
        fleet.kill('p2');
        return () => fleet.start('p3', { slot: 2 });
      }),
      loseQuorum(QUORUM_HOLD_MS),
    ];
    await fleet.publishing(true);
    await new Promise((r) => setTimeout(r, SETTLE_MS)); // a fault-free baseline first
    const noLeaseWorkload = {} as RunningWorkload; // these steps fault the cluster and the fleet, never a lease workload
    faults = await runFaults({ cluster, workload: noLeaseWorkload, rng: createRng(deriveSeed(SEED, 1000)) }, steps, {
      holdMs: HOLD_MS,
      settleMs: SETTLE_MS,
      now: machineClock,
      log: (line) => console.log(`[event-chaos] ${line}`),
    });
    await fleet.publishing(false);
    // Every fault healed and every publish returned: the real pubsub's subscribers catch up, or the verdict says
    // what they never got.
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


describe('events under faults: EtcdPubSub and its broken variants on a real cluster', () => {
  it('the real EtcdPubSub loses, reorders and doubles nothing', () => {
    const verdict = verdicts.get('real');
    expect(formatEventViolations(verdict?.violations ?? []), `${seeded}\n${fleet.describe()}`).toBe('no event violations');
  });

  it.each(EVENT_VARIANT_NAMES.filter((v) => v !== 'real'))('flags the broken variant %s', (variant) => {
    expect(violationKinds(verdicts.get(variant)), seeded).toEqual(expect.arrayContaining([...EVENT_VARIANTS[variant].flaggedAs]));
  });

  it('is not vacuous: every fault ran, publishes succeeded and failed, groups redelivered', () => {
    expect(faults.length).toBe(7);
    const summary = verdicts.get('real')!.summary;
    expect(summary.publishes - summary.publishErrors, seeded).toBeGreaterThan(200);
    // Sent into the quorum loss: they had to fail.
    expect(summary.publishErrors, seeded).toBeGreaterThan(0);
    expect(summary.redeliveries, seeded).toBeGreaterThan(0);
    expect(fleet.faults.map((f) => f.process).sort()).toEqual(['p0', 'p2']);
  });

  it('prints the figures', () => {
    const lines = [`event chaos figures (${seeded}; 3-member etcd, workers p0–p3, faults held ${HOLD_MS} ms, quorum lost ${QUORUM_HOLD_MS} ms):`];
    lines.push(...eventFigures(verdicts, fleet.warnings));
    console.log(lines.join('\n'));
    expect(verdicts.size).toBe(EVENT_VARIANT_NAMES.length);
  });
});
