// The longer composed-fault run: `npm run chaos:composed -- --seeds 50` runs that many fresh seeds (or
// `COMPOSED_SEED=<seed>` / `--seed <seed>` replays one), a progress line per seed, a summary at the end; exits 1
// when the real provider broke a check or a negative control was never caught. See docs/testing.md.
import { parseArgs } from 'node:util';
import type { ComposedRunResult } from '../../../safety-checker/composed/run.js';
import { seedFromEnv } from '../rng.js';
import { CONTROLS, progressLine, runLeaseSeed, safetyViolations, startComposedCluster } from './lease-seeds.js';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '10' },
    seed: { type: 'string' },
    span: { type: 'string', default: '60000' },
    verbose: { type: 'boolean', default: false },
  },
});
const count = Number(values.seeds);
const spanMs = Number(values.span);
if (!Number.isInteger(count) || count < 1) throw new Error(`--seeds must be a positive integer, got '${values.seeds}'`);
if (!Number.isInteger(spanMs) || spanMs < 1000) throw new Error(`--span must be an integer of milliseconds ≥ 1000, got '${values.span}'`);
if (values.seed !== undefined) process.env.COMPOSED_SEED = values.seed;
const replay = process.env.COMPOSED_SEED !== undefined && process.env.COMPOSED_SEED !== '';
const seeds = replay ? [seedFromEnv('COMPOSED_SEED')] : Array.from({ length: count }, () => seedFromEnv('COMPOSED_SEED'));

const cluster = await startComposedCluster();
const results: ComposedRunResult[] = [];
let failed = false;
try {
  for (const [i, seed] of seeds.entries()) {
    const result = await runLeaseSeed(cluster, seed, {
      spanMs,
      ...(values.verbose ? { log: (line: string) => console.log(`  ${line}`) } : {}),
    });
    results.push(result);
    console.log(progressLine(result, i, seeds.length));
    for (const example of result.verdicts[0]!.examples) console.log(`    ${example}`);
  }
} finally {
  await cluster.stop();
}

const sum = (pick: (r: ComposedRunResult) => number) => results.reduce((s, r) => s + pick(r), 0);
const realViolations = (check: string) => sum((r) => r.verdicts[0]!.violations[check] ?? 0);
console.log(`[composed] ${results.length} seeds, ${sum((r) => r.timeline.length)} faults, ${sum((r) => r.verdicts[0]!.calls)} calls of the real provider:`);
for (const check of Object.keys(results[0]!.verdicts[0]!.violations)) {
  console.log(`  ${check}: ${realViolations(check)}`);
  if (realViolations(check) > 0) failed = true;
}
for (const control of CONTROLS) {
  const caught = results.filter((r) => r.verdicts.some((v) => v.workload === control && safetyViolations(v.violations) > 0)).length;
  console.log(`  negative control ${control}: caught in ${caught} of ${results.length} seeds`);
  if (caught === 0) failed = true;
}
process.exit(failed ? 1 : 0);
