import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComposedRunResult } from '../../../safety-checker/composed/run.js';
import { FAULT_KINDS } from '../../../safety-checker/composed/schedule.js';
import type { TestCluster } from '../../harness/cluster.js';
import { seedFromEnv } from '../rng.js';
import { CI_CONTROLS, progressLine, runLeaseSeed, safetyViolations, SAFETY_CHECKS, startComposedCluster } from './lease-seeds.js';

/**
 * The composed-fault run, CI's share: a fixed handful of seeds, each a schedule of overlapping faults — kills,
 * SIGSTOPs, blackholed members, cut and slow client links, a 20 s quorum loss, wall-clock steps both ways in the
 * holder processes, suspends, floods, NOSPACE — under the chaos run's Mastra-like holders, with a deliberately
 * broken provider (leases half the ttl) riding the same faults. `COMPOSED_SEED=<seed>` runs that one seed instead;
 * `npm run chaos:composed -- --seeds 50` is the longer run (docs/testing.md).
 */
/** Seeds whose 30 s schedules hold every kind of fault between them, the 20 s outage in each. */
const SEEDS = process.env.COMPOSED_SEED ? [seedFromEnv('COMPOSED_SEED')] : [3, 5, 6];
/** Faults start within this span; the outage may run past it. */
const SPAN_MS = 30_000;

let cluster: TestCluster;
const results: ComposedRunResult[] = [];

beforeAll(async () => {
  cluster = await startComposedCluster();
  for (const [i, seed] of SEEDS.entries()) {
    const result = await runLeaseSeed(cluster, seed, { spanMs: SPAN_MS, controls: CI_CONTROLS });
    results.push(result);
    console.log(progressLine(result, i, SEEDS.length));
  }
}, 400_000);

afterAll(async () => {
  await cluster?.stop();
});

const replay = (r: ComposedRunResult) => `seed ${r.seed} (replay: COMPOSED_SEED=${r.seed})`;

describe('composed faults: overlapping faults of every kind under Mastra-like holders', () => {
  it('the real provider breaks no check: no overlap, fencing monotonic, no early loss, no error with a majority healthy below capacity', () => {
    for (const r of results) {
      const [real] = r.verdicts;
      expect(real!.violations, `${replay(r)}\n  ${real!.examples.join('\n  ')}`).toEqual({ overlaps: 0, fencing: 0, 'early losses': 0, 'caller errors': 0 });
    }
  });

  it('is not vacuous: faults of every kind applied and overlapping, calls granted, keys changing hands', () => {
    const kinds = new Set(results.flatMap((r) => r.timeline.map((f) => f.kind)));
    expect([...kinds].sort()).toEqual([...FAULT_KINDS].sort());
    for (const r of results) {
      const overlapping = r.timeline.filter((a) => r.timeline.some((b) => b !== a && b.startedAt < a.endedAt && a.startedAt < b.endedAt));
      expect(overlapping.length, replay(r)).toBeGreaterThanOrEqual(2);
      expect(r.verdicts[0]!.granted, replay(r)).toBeGreaterThan(40);
    }
  });

  it.each(CI_CONTROLS)('the negative control %s is caught', (control) => {
    const caught = results.filter((r) => r.verdicts.some((v) => v.workload === control && safetyViolations(v.violations) > 0));
    expect(caught.length, `${control}: caught in none of seeds ${results.map((r) => r.seed).join(', ')} by ${SAFETY_CHECKS.join(', ')}`).toBeGreaterThan(0);
  });
});
