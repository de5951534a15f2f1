import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedHolders } from '../../safety-checker/after-heal.js';
import { checkFencingMonotonic, checkOverlaps } from '../../safety-checker/check-overlaps.js';
import { machineClock, Recorder } from '../../safety-checker/recorder.js';
import { longestStall } from '../../safety-checker/stalls.js';
import type { RecordedOp } from '../../safety-checker/types.js';
import { EtcdLeaseProvider } from '../../src/index.js';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import {
  blackholeFollower,
  cutClientLink,
  isolateLeader,
  jitteryMember,
  killLeader,
  loseQuorum,
  oneWayFromLeader,
  pauseLeader,
  runFaults,
  slowClientLinks,
  suspendHolder,
  type FaultStep,
  type FaultWindow,
} from './faults.js';
import { createRng, deriveSeed, runSeed } from './rng.js';
import { sweepKeys } from './sweep.js';
import { startWorkload } from './workload.js';
import { SWEEP_TIMEOUT_MS, WORKLOAD_SHAPE } from './workload-shape.js';

/**
 * The chaos run: client processes of Mastra-like holders (holder.ts) contend for a few keys with a 4 s TTL
 * while the harness kills, pauses, isolates, cuts, slows and partitions members, suspends a client and takes
 * quorum away. The assertions are the safety property of docs/design.md#safety-property and the figures the
 * README states; the figures are printed too. A failure names the seed: CHAOS_SEED=<seed> replays its choices.
 */
const HOLD_MS = Number(process.env.CHAOS_HOLD_MS ?? 3000);
const SETTLE_MS = Number(process.env.CHAOS_SETTLE_MS ?? 3000);
/** Quorum loss is held longer than a call's 5 s deadline, so calls sent into the outage end inside it. */
const QUORUM_HOLD_MS = 7000;
/**
 * A stall after a leader fault may exceed the election the harness saw by this much: the survivors' first
 * answers wait for an attempt timeout on the lost member, its circuit to open and a backoff. That took 0.0–0.7 s
 * here; the bound leaves room for a CI machine several times slower, so it catches a provider that hangs on a
 * lost leader, not a slow machine.
 */
const STALL_HEADROOM_MS = 2000;
const { keys: KEYS, ttlMs: TTL_MS } = WORKLOAD_SHAPE;
const SEED = runSeed();
const seeded = `seed ${SEED} (replay: CHAOS_SEED=${SEED})`;

const STEPS: FaultStep[] = [
  killLeader,
  pauseLeader,
  isolateLeader,
  blackholeFollower,
  cutClientLink,
  oneWayFromLeader,
  jitteryMember,
  slowClientLinks(1),
  suspendHolder(2500),
  loseQuorum(QUORUM_HOLD_MS),
];

let cluster: TestCluster;
let history: RecordedOp[] = [];
let faults: FaultWindow[] = [];
let baseline = { start: 0, end: 0 };
const heldAfterHeal = new Map<string, string | undefined>();
let historyAtHeal: RecordedOp[] = [];
let swept: string[] = [];
const prefix = `chaos/${process.pid}/`;

beforeAll(async () => {
  console.log(`[chaos] ${seeded}`);
  cluster = await startCluster();
  const workload = await startWorkload({
    endpoints: cluster.endpoints(),
    prefix,
    ...WORKLOAD_SHAPE,
    seed: SEED,
  });
  // While quorum is gone, a client with a 1 s deadline makes calls that are sure to be sent and answered
  // inside the outage: none of them may report success — a release included.
  const probe = new EtcdLeaseProvider({ hosts: cluster.endpoints(), prefix, deadlineMs: 1000 });
  const probeRecorder = new Recorder('probe', probe, (op) => workload.history.push(op));
  try {
    baseline = { start: machineClock(), end: 0 };
    await new Promise((r) => setTimeout(r, SETTLE_MS)); // a fault-free baseline first
    baseline.end = machineClock();
    faults = await runFaults({ cluster, workload, rng: createRng(deriveSeed(SEED, 1000)) }, STEPS, {
      holdMs: HOLD_MS,
      settleMs: SETTLE_MS,
      now: machineClock,
      log: (line) => console.log(`[chaos] ${line}`),
      whileHeld: async (step) => {
        if (step.scope !== 'quorum') return;
        for (const [i, key] of KEYS.slice(0, 3).entries()) {
          await probeRecorder.acquire(key, `probe/run-${i}`, TTL_MS);
          await probeRecorder.release(key, `probe/run-${i}`);
        }
      },
    });
  } finally {
    await probe.close();
    history = await workload.stop();
    console.log(`[chaos] workload stopped: ${history.length} calls`);
  }
  // Every fault is healed and every call has returned: what etcd holds now must be explainable.
  const reader = new EtcdLeaseProvider({ hosts: cluster.endpoints(), prefix });
  try {
    for (const key of KEYS) heldAfterHeal.set(key, await reader.getLeaseOwner(key));
    // Judged on the history up to here: the sweeper's windows come later and would be every key's last.
    historyAtHeal = [...history];
  } finally {
    await reader.close();
  }
  // Every holder has stopped renewing; a key etcd lets go before its last holder's belief ends shows as an overlap.
  swept = await sweepKeys({ endpoints: cluster.endpoints(), prefix, keys: KEYS, ttlMs: TTL_MS, history, timeoutMs: SWEEP_TIMEOUT_MS });
  // CHAOS_HISTORY=path keeps the raw record for a closer look (safety-checker/ can re-judge it).
  if (process.env.CHAOS_HISTORY) writeFileSync(process.env.CHAOS_HISTORY, JSON.stringify({ seed: SEED, faults, history }));
}, 400_000);

afterAll(async () => {
  await cluster?.stop();
});

const during = (op: RecordedOp, w: { start: number; end: number }) => op.returnedAt >= w.start && op.sentAt <= w.end;
/** Worker holders are named p<process>.h<holder>; the probe and the sweeper are not workers. */
const processOf = (op: RecordedOp) => /^(p\d+)\./.exec(op.client)?.[1];

describe('chaos: Mastra-like holders under kills, pauses, cuts, partitions, latency, a client suspend and quorum loss', () => {
  it('belief windows of different owners never overlap', () => {
    // Not vacuous: enough granted calls, and keys that really changed hands. The count is a floor, not a
    // speed claim (a slow CI machine granted 90 in one run; a fast one grants several hundred).
    const granted = history.filter((o) => o.outcome === 'ok');
    expect(granted.length, seeded).toBeGreaterThan(40);
    const ownersPerKey = new Map<string, Set<string>>();
    for (const o of granted) ownersPerKey.set(o.key, (ownersPerKey.get(o.key) ?? new Set()).add(o.owner));
    expect([...ownersPerKey.values()].filter((s) => s.size > 1).length, seeded).toBeGreaterThanOrEqual(2);
    expect(checkOverlaps(history), seeded).toEqual([]);
  });

  it('fencing tokens strictly increase from owner to owner, renews included', () => {
    expect(history.filter((o) => o.op === 'renew' && o.fencingToken !== undefined).length, 'renews carry tokens').toBeGreaterThan(0);
    expect(checkFencingMonotonic(history), seeded).toEqual([]);
  });

  it('no call surfaced an error while only one member was faulted', () => {
    const single = faults.filter((f) => f.scope === 'single');
    expect(single.length).toBe(STEPS.filter((s) => s.scope === 'single').length);
    // Except the asymmetric partition: without pre-vote (etcd 3.4's default) the follower that stops hearing the
    // leader campaigns with a higher term and deposes it, again and again while the hold lasts — a leader fault in
    // effect, in which a call can run out of its deadline (seen: 3 renews and releases of ~870 calls, once in
    // several runs). What holds there is what holds for every fault: no overlap, no false success.
    const plain = single.filter((f) => f.name !== oneWayFromLeader.name);
    const errors = history.filter((o) => o.outcome === 'error' && plain.some((f) => during(o, f)));
    expect(errors, seeded).toEqual([]);
  });

  it(`after a leader fault, no stall outlasts the election the harness saw by more than ${STALL_HEADROOM_MS} ms`, () => {
    const leaderFaults = faults.filter((f) => f.scope === 'single' && f.hitsLeader);
    expect(leaderFaults.length).toBe(3);
    for (const f of leaderFaults) {
      const stall = longestStall(history, f.start, f.end + SETTLE_MS);
      expect(stall.durationMs, `${f.name}: stall ${stall.durationMs.toFixed(0)} ms, election ${f.electedAfterMs!.toFixed(0)} ms; ${seeded}`).toBeLessThanOrEqual(
        f.electedAfterMs! + STALL_HEADROOM_MS,
      );
    }
  });

  it('no call reported success while quorum was gone, releases included', () => {
    const outages = faults.filter((f) => f.scope === 'quorum');
    expect(outages.length).toBe(1);
    for (const f of outages) {
      // Sent after both members were dead and answered before the first restart began: nobody could grant them.
      const inside = history.filter((o) => o.sentAt > f.injectedAt && o.returnedAt < f.healStartedAt);
      expect(inside.filter((o) => o.op === 'release').length).toBeGreaterThan(0);
      expect(inside.filter((o) => o.outcome === 'ok'), seeded).toEqual([]);
    }
  });

  it('after every fault healed, each key is free or held by an owner the history allows', () => {
    expect([...heldAfterHeal.keys()]).toEqual(KEYS);
    for (const [key, owner] of heldAfterHeal) {
      if (owner === undefined) continue;
      expect([...allowedHolders(historyAtHeal, key, faults)], `${key}: held by ${owner}; ${seeded}`).toContain(owner);
    }
  });

  it('once the workload stopped, every key became free again and the sweeper took it', () => {
    expect(swept.sort(), seeded).toEqual([...KEYS].sort());
  });

  it('the workload kept going: every process got answers in the baseline and after every heal, and every key was won', () => {
    const processes = new Set(history.map(processOf).filter((p) => p !== undefined));
    expect(processes.size).toBe(3);
    const calm = [baseline, ...faults.map((f) => ({ start: f.end, end: f.end + SETTLE_MS }))];
    for (const period of calm) {
      const answered = new Set(
        history
          .filter((o) => o.outcome !== 'error' && o.returnedAt >= period.start && o.returnedAt <= period.end)
          .map(processOf)
          .filter((p) => p !== undefined),
      );
      expect([...answered].sort(), seeded).toEqual([...processes].sort());
    }
    for (const key of KEYS) expect(history.some((o) => o.key === key && o.op === 'acquire' && o.outcome === 'ok')).toBe(true);
  });

  it('prints the figures', () => {
    const single = faults.filter((f) => f.scope === 'single');
    const lines = [
      `chaos figures (${seeded}; 3-member etcd, 3 processes x 4 holders, ${history.length} calls, ttl ${TTL_MS} ms, faults held ${HOLD_MS} ms):`,
      `  overlapping belief windows:                    ${checkOverlaps(history).length}`,
      `  fencing-token regressions:                     ${checkFencingMonotonic(history).length}`,
      `  errors surfaced during single-member faults:   ${history.filter((o) => o.outcome === 'error' && single.some((f) => during(o, f))).length}`,
      ...faults
        .filter((f) => f.hitsLeader && f.scope === 'single')
        .map((f) => `  longest stall, ${f.name}: ${(longestStall(history, f.start, f.end + SETTLE_MS).durationMs / 1000).toFixed(2)} s (new leader seen after ${(f.electedAfterMs! / 1000).toFixed(2)} s)`),
      ...faults
        .filter((f) => !f.hitsLeader || f.scope !== 'single')
        .map((f) => `  ${f.name}: ${history.filter((o) => during(o, f) && o.outcome === 'error').length} errors, longest stall ${(longestStall(history, f.start, f.end + SETTLE_MS).durationMs / 1000).toFixed(2)} s`),
      `  calls: ${history.filter((o) => o.outcome === 'ok').length} ok, ${history.filter((o) => o.outcome === 'lost').length} lost, ${history.filter((o) => o.outcome === 'error').length} errors`,
    ];
    console.log(lines.join('\n'));
    expect(faults.length).toBe(STEPS.length);
  });
});
