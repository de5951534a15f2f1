import { judgeLeaseHistory } from '../../../safety-checker/composed/judge.js';
import type { WorkloadFactory } from '../../../safety-checker/composed/run.js';
import type { RecordedOp } from '../../../safety-checker/types.js';
import { sweepKeys } from '../sweep.js';
import type { VariantName } from '../variants.js';
import { startWorkload } from '../workload.js';
import { SWEEP_TIMEOUT_MS, WORKLOAD_SHAPE } from '../workload-shape.js';

export interface LeaseWorkloadOptions {
  /** Names the workload in verdicts and its keys' prefix. */
  readonly name: string;
  /** The provider its processes run: the real one, or a broken double (a negative control). @default 'real' */
  readonly variant?: VariantName;
  /** @default WORKLOAD_SHAPE.processes */
  readonly processes?: number;
}

/**
 * The chaos run's lease workload (client processes of Mastra-like holders, holder.ts) as a composed-run workload:
 * client faults reach its processes, and once stopped a sweeper takes every key the moment it is free (a key let go
 * early shows as a second believing owner), then the history is judged with the lease checks.
 */
export function leaseWorkload(options: LeaseWorkloadOptions): WorkloadFactory {
  return async ({ cluster, seed }) => {
    const prefix = `composed/${process.pid}/${seed}/${options.name}/`;
    const workload = await startWorkload({
      endpoints: cluster.endpoints(),
      prefix,
      ...WORKLOAD_SHAPE,
      processes: options.processes ?? WORKLOAD_SHAPE.processes,
      seed,
      variant: options.variant ?? 'real',
    });
    let history: RecordedOp[] = [];
    return {
      name: options.name,
      clients: {
        processes: workload.processes,
        suspend: async (p, ms) => void (await workload.suspend(p, ms)),
        stepClock: (p, ms) => workload.stepClock(p, ms),
        flood: async (p, ms) => void (await workload.flood(p, ms)),
      },
      async stop() {
        history = await workload.stop();
        await sweepKeys({ endpoints: cluster.endpoints(), prefix, keys: WORKLOAD_SHAPE.keys, ttlMs: WORKLOAD_SHAPE.ttlMs, history, timeoutMs: SWEEP_TIMEOUT_MS });
      },
      judge: (timeline) =>
        judgeLeaseHistory(options.name, history, timeline, {
          members: cluster.size,
          processes: workload.processes,
          // Holders are named p<process>.h<holder>; the sweeper belongs to no process.
          processOf: (op) => {
            const match = /^p(\d+)\./.exec(op.client);
            return match === null ? undefined : Number(match[1]);
          },
        }),
    };
  };
}
