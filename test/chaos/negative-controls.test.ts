import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFencingMonotonic, checkOverlaps } from '../../safety-checker/check-overlaps.js';
import type { RecordedOp } from '../../safety-checker/types.js';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { loseQuorum, slowClientLinks, suspendHolder, type FaultStep } from './faults.js';
import { createRng, deriveSeed, runSeed } from './rng.js';
import { sweepKeys } from './sweep.js';
import type { VariantName } from './variants.js';
import { startWorkload } from './workload.js';
import { SWEEP_TIMEOUT_MS, WORKLOAD_SHAPE } from './workload-shape.js';

/**
 * The chaos suite's checkers must catch a broken provider, or its green runs mean nothing. Each deliberately
 * broken double (test/chaos/broken/) runs through the same workload as the chaos run — client processes of
 * Mastra-like holders — on a real cluster, under the one fault that exposes its flaw, and the checker must flag it.
 *
 * The owner-only renew and release (broken/owner-only-*.ts) and the monotonic-only clock are not run here:
 * test/safety/ catches each deterministically, and through this workload they show too rarely for a test that cannot
 * flake. A late renew hurts only when it lands after a later renew of the same holder that was that holder's last,
 * and its lease then ends more than the pooling slack before the later one's — two slow client links rarely line
 * that up, even with a 100 ms lease bucket; the monotonic-only clock is flagged only in some runs of a client suspend.
 */
const { keys: KEYS, ttlMs: TTL_MS } = WORKLOAD_SHAPE;
const WARM_UP_MS = 2000;
/** How long a control without a fault runs. */
const RUN_MS = 6000;
const SETTLE_MS = 1500;
const SEED = runSeed();
const seeded = `seed ${SEED} (replay: CHAOS_SEED=${SEED})`;

interface Control {
  readonly variant: VariantName;
  /** What it breaks, for the test's name. */
  readonly flaw: string;
  /** The fault that exposes it; none when contention alone does. */
  readonly fault?: FaultStep;
  /** How long the fault is held, when not the step's own. */
  readonly holdMs?: number;
  /**
   * Where the flaw shows only when the workload meets the right moment (a retry of an acquire of a held key, a key
   * abandoned and taken again quickly), whether one run shows it is a matter of chance: up to this many runs, until
   * one does. @default 1
   */
  readonly rounds?: number;
  readonly caughtBy: 'overlap' | 'fencing';
}

const CONTROLS: readonly Control[] = [
  { variant: 'blind-put-acquire', flaw: 'acquire writes without a compare', caughtBy: 'overlap' },
  // Flagged only when a holder abandons a key and another takes it within the missing half: 1 to 6 times a run here.
  { variant: 'short-lease', flaw: 'leases last half the ttl', rounds: 2, caughtBy: 'overlap' },
  { variant: 'local-counter-tokens', flaw: 'fencing tokens from a counter in each process', rounds: 3, caughtBy: 'fencing' },
  // Flagged when a suspended holder wakes after its key changed hands and its renew takes it back: 1 to 6 times a run here.
  {
    variant: 'renew-without-owner-compare',
    flaw: 'renew takes the key from whoever holds it',
    fault: suspendHolder(7000),
    rounds: 2,
    caughtBy: 'overlap',
  },
  {
    variant: 'blind-retry-acquire',
    flaw: 'an acquire retries an unanswered attempt with a blind put (a non-idempotent retry)',
    // Every attempt sent to the slow member times out and is retried elsewhere.
    fault: slowClientLinks(1),
    holdMs: 6000,
    rounds: 2,
    caughtBy: 'overlap',
  },
  { variant: 'guessing-acquire', flaw: 'an unanswered acquire reports the lease won', fault: loseQuorum(3000), caughtBy: 'overlap' },
];

let cluster: TestCluster;

beforeAll(async () => {
  console.log(`[controls] ${seeded}`);
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

const violationsOf = (control: Control, history: RecordedOp[]) =>
  control.caughtBy === 'overlap' ? checkOverlaps(history) : checkFencingMonotonic(history);

/**
 * The workload under the control's fault (or none); then, unless the run already gave the flaw away, the sweep.
 * Resolves with the whole history (every call has returned: judging it is sound).
 */
async function runControl(control: Control, index: number, round: number): Promise<RecordedOp[]> {
  const prefix = `controls/${process.pid}/${control.variant}/${round}/`;
  const workload = await startWorkload({
    endpoints: cluster.endpoints(),
    prefix,
    ...WORKLOAD_SHAPE,
    seed: deriveSeed(SEED, 10 * index + round),
    variant: control.variant,
  });
  const log = (line: string) => console.log(`[controls] ${control.variant}: ${line}`);
  try {
    await sleep(WARM_UP_MS);
    if (control.fault === undefined) {
      await sleep(RUN_MS);
    } else {
      log(`fault: ${control.fault.name}`);
      const heal = await control.fault.inject({ cluster, workload, rng: createRng(deriveSeed(SEED, 1000 + 10 * index + round)) });
      try {
        await sleep(control.holdMs ?? control.fault.holdMs ?? 3000);
      } finally {
        await heal();
        await cluster.waitHealthy(60_000);
      }
      await sleep(SETTLE_MS);
    }
  } finally {
    await workload.stop();
  }
  if (violationsOf(control, workload.history).length > 0) return workload.history;
  const swept = await sweepKeys({ endpoints: cluster.endpoints(), prefix, keys: KEYS, ttlMs: TTL_MS, history: workload.history, timeoutMs: SWEEP_TIMEOUT_MS });
  log(`swept ${swept.length} of ${KEYS.length} keys`);
  return workload.history;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('negative controls: the checkers flag every broken provider the chaos workload runs', () => {
  CONTROLS.forEach((control, index) => {
    it(`${control.variant} (${control.flaw}) is flagged by the ${control.caughtBy} check`, async () => {
      let violations: unknown[] = [];
      for (let round = 0; round < (control.rounds ?? 1) && violations.length === 0; round++) {
        const history = await runControl(control, index, round);
        // CHAOS_HISTORY_DIR=dir keeps each run's raw record for a closer look.
        if (process.env.CHAOS_HISTORY_DIR) {
          writeFileSync(join(process.env.CHAOS_HISTORY_DIR, `${control.variant}-${round}.json`), JSON.stringify({ seed: SEED, history }));
        }
        violations = violationsOf(control, history);
        console.log(`[controls] ${control.variant}, run ${round + 1}: ${history.length} calls, ${violations.length} ${control.caughtBy} violations`);
      }
      expect(violations.length, `${control.variant} went unnoticed; ${seeded}`).toBeGreaterThan(0);
    }, 240_000);
  });
});
