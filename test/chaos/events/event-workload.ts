import type { AppliedFault } from '../../../safety-checker/composed/apply.js';
import type { WorkloadVerdict } from '../../../safety-checker/composed/judge.js';
import type { ComposedWorkload, WorkloadContext, WorkloadFactory } from '../../../safety-checker/composed/run.js';
import type { EventVerdict } from '../../../safety-checker/events/types.js';
import type { EventVariantName } from '../../pubsub/broken/event-variants.js';
import { createRng, deriveSeed } from '../rng.js';
import { EventFleet } from './event-fleet.js';
import { drain, judgeVariants } from './event-judge.js';
import { EVENT_SHAPE } from './event-workload-shape.js';

export interface EventRunOptions {
  /** The variants riding every worker process; the first is the one the drain waits for (the real EtcdPubSub). */
  readonly variants: readonly EventVariantName[];
  /** The schedule's span: the worker kill falls within it. */
  readonly spanMs: number;
  /** The composed run's fault-free warm-up, so the kill lands among the scheduled faults. */
  readonly warmUpMs: number;
  readonly log?: (line: string) => void;
}

/** A replacement worker started into an outage (quorum lost, NOSPACE) subscribes once etcd lets it. */
const REPLACEMENT_READY_MS = 150_000;

/**
 * The event workload of one composed-run seed: worker processes (event-fleet.ts) each with its own EtcdPubSub,
 * seen through every variant, riding the seed's faults; the event side's own fault besides, a worker SIGKILLed at a
 * seeded moment and a replacement started in its slot. `workloads()` gives the composed run one workload per
 * variant, all over the same processes and publishes: one verdict per variant, as the lease run has one per
 * provider. Once the run stops it, publishing stops and the run waits — on a condition, up to a bound — until the
 * real EtcdPubSub's subscribers and groups have everything they are owed, then judges every variant's history.
 */
export class EventRun {
  /** Each variant's verdict, once judged. */
  readonly verdicts = new Map<EventVariantName, EventVerdict>();
  /** The worker SIGKILLed, and how long the drain took after publishing stopped. */
  killed = '';
  drainMs = 0;
  private fleet: EventFleet | undefined;
  private stopping: Promise<void> | undefined;
  private endedAt = 0;
  private replaced: Promise<void> = Promise.resolve();

  constructor(private readonly options: EventRunOptions) {}

  get workers(): EventFleet {
    if (this.fleet === undefined) throw new Error('the event run has not started');
    return this.fleet;
  }

  workloads(): WorkloadFactory[] {
    return this.options.variants.map((variant, i) => async (context: WorkloadContext): Promise<ComposedWorkload> => {
      if (i === 0) await this.start(context);
      return {
        name: variant,
        // One set of processes: the first variant's workload carries them to the client faults.
        ...(i === 0 ? { clients: this.workers.clients } : {}),
        stop: () => (this.stopping ??= this.stop()),
        judge: (timeline) => this.judge(variant, timeline),
      };
    });
  }

  private async start({ cluster, seed }: WorkloadContext): Promise<void> {
    const log = this.options.log ?? (() => {});
    const root = `composed-events/${process.pid}/${seed}`;
    const fleet = new EventFleet({ endpoints: cluster.endpoints(), prefix: `${root}/leases/`, eventPrefix: `${root}/events/`, seed, variants: this.options.variants });
    this.fleet = fleet;
    try {
      await Promise.all(Array.from({ length: EVENT_SHAPE.processes }, (_, i) => fleet.start(`p${i}`, { schedule: i === 0 })));
      await fleet.publishing(true);
    } catch (error) {
      fleet.killAll();
      throw error;
    }
    // Not p0: its single-member group's order is checked, and a group with no member left is owed nothing.
    const rng = createRng(deriveSeed(seed, 7000));
    const slot = rng.int(1, EVENT_SHAPE.processes - 1);
    const atMs = this.options.warmUpMs + rng.int(this.options.spanMs * 0.2, this.options.spanMs * 0.8);
    this.replaced = (async () => {
      await new Promise((r) => setTimeout(r, atMs));
      this.killed = fleet.inSlot(slot);
      const replacement = `p${EVENT_SHAPE.processes}`;
      log(`SIGKILL event worker ${this.killed} at ${(atMs / 1000).toFixed(1)} s, start ${replacement} in its slot`);
      fleet.kill(this.killed);
      await fleet.start(replacement, { slot, readyTimeoutMs: REPLACEMENT_READY_MS });
      await fleet.publishing(true);
    })();
    this.replaced.catch(() => {}); // awaited by stop(): not an unhandled rejection meanwhile
  }

  private async stop(): Promise<void> {
    const fleet = this.workers;
    try {
      await this.replaced;
      await fleet.publishing(false);
      const stopped = performance.now();
      this.endedAt = await drain(fleet, this.options.variants[0]!);
      this.drainMs = performance.now() - stopped;
    } finally {
      await fleet.stop().catch(() => fleet.killAll());
    }
  }

  private judge(variant: EventVariantName, _timeline: readonly AppliedFault[]): WorkloadVerdict {
    if (this.verdicts.size === 0) for (const [v, verdict] of judgeVariants(this.workers, this.options.variants, this.endedAt)) this.verdicts.set(v, verdict);
    const verdict = this.verdicts.get(variant)!;
    const count = (kind: string) => verdict.violations.filter((v) => v.kind === kind).length;
    return {
      workload: variant,
      calls: verdict.summary.publishes,
      granted: verdict.summary.publishes - verdict.summary.publishErrors,
      violations: { lost: count('lost'), order: count('order'), duplicate: count('duplicate'), concurrent: count('concurrent') },
      examples: verdict.violations.slice(0, 5).map((v) => `${v.kind} [${v.topic}] ${v.detail}`),
    };
  }
}
