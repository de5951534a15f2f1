import { runComposed, type ComposedRunResult } from '../../../safety-checker/composed/run.js';
import { spaceFaults, SMALL_QUOTA_ARGS } from '../../../safety-checker/composed/space.js';
import { startCluster, type TestCluster } from '../../harness/cluster.js';
import type { VariantName } from '../variants.js';
import { leaseWorkload } from './lease-workload.js';

/**
 * The lease side of the composed-fault run, shared by the suite (a fixed handful of seeds) and the longer script:
 * one cluster with a small backend quota (so NOSPACE is a fault among others), and per seed the real provider's
 * Mastra-like workload beside a deliberately broken one's, both under the seed's faults.
 */

/**
 * The broken providers riding every seed of the longer run as negative controls, one process each; each must be
 * caught in some seed. `short-lease` is caught in every seed here (1 to 4 times a seed);
 * `blind-retry-acquire` only when an acquire of its one process goes unanswered while another holds the key, which a
 * seed may or may not bring (2 of CI's three seeds in each of two runs here, none in a third), so CI's handful leaves it to
 * test/chaos/negative-controls.test.ts, whose slowed link catches it every run.
 */
export const CONTROLS: readonly VariantName[] = ['short-lease', 'blind-retry-acquire'];
/** The control CI's handful of seeds rides and asserts. */
export const CI_CONTROLS: readonly VariantName[] = ['short-lease'];
/** The checks a control may be caught by (caller errors judge availability, not safety). */
export const SAFETY_CHECKS = ['overlaps', 'fencing', 'early losses'] as const;

export function startComposedCluster(): Promise<TestCluster> {
  return startCluster({ extraArgs: [...SMALL_QUOTA_ARGS] });
}

export interface LeaseSeedOptions {
  readonly spanMs: number;
  /** @default CONTROLS */
  readonly controls?: readonly VariantName[];
  readonly log?: (line: string) => void;
}

export function runLeaseSeed(cluster: TestCluster, seed: number, options: LeaseSeedOptions): Promise<ComposedRunResult> {
  return runComposed({
    cluster,
    seed,
    workloads: [leaseWorkload({ name: 'real' }), ...(options.controls ?? CONTROLS).map((variant) => leaseWorkload({ name: variant, variant, processes: 1 }))],
    schedule: { spanMs: options.spanMs },
    space: spaceFaults(cluster),
    ...(options.log ? { log: options.log } : {}),
  });
}

/** Safety violations of a verdict (what a negative control must show, and the real provider must not). */
export function safetyViolations(violations: Readonly<Record<string, number>>): number {
  return SAFETY_CHECKS.reduce((sum, check) => sum + (violations[check] ?? 0), 0);
}

/** One line per seed: its faults, calls, violations of the real provider, and which controls were caught. */
export function progressLine(result: ComposedRunResult, index: number, total: number): string {
  const [real, ...controls] = result.verdicts;
  const kinds = new Map<string, number>();
  for (const f of result.timeline) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
  const violations = Object.entries(real!.violations)
    .map(([check, n]) => `${check} ${n}`)
    .join(', ');
  const caught = controls.map((c) => `${c.workload} ${safetyViolations(c.violations) > 0 ? `caught (${safetyViolations(c.violations)})` : 'not caught'}`);
  return (
    `[composed] seed ${index + 1}/${total} ${result.seed} (replay: COMPOSED_SEED=${result.seed}): ${result.timeline.length} faults ` +
    `(${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}), ${real!.calls} calls (${real!.granted} ok) in ${(result.durationMs / 1000).toFixed(0)} s; ` +
    `real: ${violations}; controls: ${caught.join(', ')}`
  );
}
