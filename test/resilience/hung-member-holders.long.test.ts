import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOverlaps } from '../../safety-checker/check-overlaps.js';
import { machineClock, Recorder } from '../../safety-checker/recorder.js';
import type { RecordedOp } from '../../safety-checker/types.js';
import { EtcdLeaseProvider } from '../../src/index.js';
import { blackholeFollower, blackholeLeader, pauseFollower, pauseLeader, runFaults, type FaultStep, type FaultWindow } from '../chaos/faults.js';
import { createRng, deriveSeed, runSeed } from '../chaos/rng.js';
import { startWorkload, type RunningWorkload } from '../chaos/workload.js';
import { startCluster, type TestCluster } from '../harness/cluster.js';

/**
 * One member hangs for tens of seconds — SIGSTOPped (open sockets, no answers) or behind a blackholed network —
 * while the other two keep a quorum: the leader (the others elect a new one within a couple of seconds) and a
 * follower (no election at all). Client processes of Mastra-like holders (test/chaos/holder.ts: a renew every
 * ttl/3 from a timer that does not wait for the previous call, re-acquires, releases, transfers) run through
 * all four, with the providers' default settings. While a majority is healthy a caller must not notice which
 * member hangs, however long it hangs: no call fails, hardly any waits on the hung member, and an owner read
 * (a caller may bound its own at 5 s) answers quickly — asked of a provider that is itself busy renewing its own leases,
 * as a Mastra process's is.
 *
 * HUNG_MEMBER_HOLD_MS holds each fault longer or shorter (default 60 s for a leader, 30 s for a follower);
 * HUNG_MEMBER_HISTORY=path keeps the calls, the owner reads and the fault windows for a closer look.
 */
const HOLD_MS = process.env.HUNG_MEMBER_HOLD_MS === undefined ? undefined : Number(process.env.HUNG_MEMBER_HOLD_MS);
const SETTLE_MS = 3000;
const SLOW_MS = 400;
/** Share of the calls sent while a member hung that may take longer than SLOW_MS. */
const SLOW_SHARE = 0.05;
/**
 * The same share once the fault is no news: from a second after the new leader was seen (a second after the fault
 * when no election followed). The calls before that are the election's, which no client can shorten, and those
 * that queued behind one of them on their key (per-key order); after it, hardly any call may wait on the hung member.
 */
const STEADY_SLOW_SHARE = 0.01;
const STEADY_AFTER_MS = 1000;
/**
 * An owner read sent during the fault should take about the election (as the harness saw it; none for a follower)
 * plus this long: a linearizable read cannot answer during the election, and need not wait on the hung member after
 * it. That is a speed figure, printed here and kept in docs/operations.md, not asserted: on a loaded machine a read
 * may take longer without anything being wrong. What is asserted is Mastra's own bound on the read, 5 s: a read
 * over it is one Mastra gives up on.
 */
const OWNER_READ_AFTER_LEADER_MS = 1000;
const CALLER_OWNER_READ_BOUND_MS = 5000;
const OWNER_READ_EVERY_MS = 200;
const TTL_MS = 3000;
const KEYS = Array.from({ length: 24 }, (_, i) => `thread-${i}`);
/** Keys the reading process holds itself, renewed every ttl/3 beside its owner reads. */
const READER_KEYS = Array.from({ length: 30 }, (_, i) => `reader-${i}`);
const SEED = runSeed();
const seeded = `seed ${SEED}`;

const held = (step: FaultStep, defaultMs: number): FaultStep => ({ ...step, holdMs: HOLD_MS ?? defaultMs });
/** A leader is held longer: its election (1–2 s, in which every call waits) is a smaller share of the fault. */
const STEPS = [held(pauseLeader, 60_000), held(blackholeLeader, 60_000), held(pauseFollower, 30_000), held(blackholeFollower, 30_000)];

interface OwnerRead {
  readonly op: 'getLeaseOwner' | 'getLease';
  readonly sentAt: number;
  readonly ms: number;
  readonly error?: string;
}

let cluster: TestCluster;
let workload: RunningWorkload | undefined;
const history: RecordedOp[] = [];
let faults: FaultWindow[] = [];
const ownerReads: OwnerRead[] = [];
const prefix = `hung/${process.pid}/`;

beforeAll(async () => {
  console.log(`[hung-member] ${seeded}`);
  cluster = await startCluster();
  workload = await startWorkload({ endpoints: cluster.endpoints(), prefix, processes: 3, holdersPerProcess: 10, keys: KEYS, ttlMs: TTL_MS, seed: SEED });
  const reader = new EtcdLeaseProvider({ hosts: cluster.endpoints(), prefix });
  let going = true;
  const reads = Promise.all([readOwners(reader, () => going), holdOwnKeys(reader, () => going)]);
  try {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    faults = await runFaults({ cluster, workload, rng: createRng(deriveSeed(SEED, 1000)) }, STEPS, {
      holdMs: 30_000,
      settleMs: SETTLE_MS,
      now: machineClock,
      log: (line) => console.log(`[hung-member] ${line}`),
    });
  } finally {
    going = false;
    await reads;
    await reader.close();
    history.push(...(await workload.stop()));
  }
  if (process.env.HUNG_MEMBER_HISTORY) writeFileSync(process.env.HUNG_MEMBER_HISTORY, JSON.stringify({ seed: SEED, faults, history, ownerReads }));
}, 400_000);

afterAll(async () => {
  await workload?.stop();
  await cluster?.stop();
});

/** An owner read, over and over (as a caller checking who holds a key would): getLeaseOwner and getLease of a workload key. */
async function readOwners(reader: EtcdLeaseProvider, going: () => boolean): Promise<void> {
  for (let i = 0; going(); i++) {
    const op = i % 2 === 0 ? 'getLeaseOwner' : 'getLease';
    const key = KEYS[i % KEYS.length]!;
    const sentAt = machineClock();
    try {
      await (op === 'getLeaseOwner' ? reader.getLeaseOwner(key) : reader.getLease(key));
      ownerReads.push({ op, sentAt, ms: machineClock() - sentAt });
    } catch (error) {
      ownerReads.push({ op, sentAt, ms: machineClock() - sentAt, error: String(error) });
    }
    await new Promise((r) => setTimeout(r, OWNER_READ_EVERY_MS));
  }
}

/**
 * The reading process's own leases, held the way Mastra holds a thread's: a renew every ttl/3 from a timer that does
 * not wait for the previous one, and an acquire again once a renew answers false. Recorded with the workers' calls.
 */
async function holdOwnKeys(provider: EtcdLeaseProvider, going: () => boolean): Promise<void> {
  const recorder = new Recorder('reader', provider, (op) => history.push(op));
  const inFlight = new Set<Promise<unknown>>();
  const track = (call: Promise<unknown>) => {
    inFlight.add(call);
    void call.finally(() => inFlight.delete(call));
  };
  const timers = READER_KEYS.map((key, i) => {
    const owner = `reader/${key}`;
    let lost = false;
    const acquire = () => track(recorder.acquire(key, owner, TTL_MS).then((won) => (lost = won === false)));
    acquire();
    return setInterval(() => {
      if (lost) acquire();
      else track(recorder.renew(key, owner, TTL_MS).then((renewed) => (lost ||= renewed === false)));
    }, TTL_MS / 3 + i);
  });
  while (going()) await new Promise((r) => setTimeout(r, 100));
  for (const timer of timers) clearInterval(timer);
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
}

/** Sent while the fault held: from the moment it was in place until healing began. */
const sentWhileHung = (sentAt: number, f: FaultWindow) => sentAt >= f.injectedAt && sentAt <= f.healStartedAt;

/** Latency figures of the calls sent in [from, to]. */
function latencies(from: number, to: number) {
  const calls = history.filter((o) => o.sentAt >= from && o.sentAt <= to);
  const ms = calls.map((o) => o.returnedAt - o.sentAt).sort((a, b) => a - b);
  const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0);
  const slow = ms.filter((m) => m > SLOW_MS).length;
  return { calls, slow, share: slow / Math.max(1, calls.length), p50: at(0.5), p99: at(0.99), max: Math.round(ms.at(-1) ?? 0) };
}

const percent = (share: number) => `${(100 * share).toFixed(1)} %`;

describe('a member hung for tens of seconds while a majority is healthy (Mastra-like holders in 3 processes)', () => {
  it('no two owners ever believed they held a key at the same time', () => {
    expect(history.filter((o) => o.outcome === 'ok').length).toBeGreaterThan(100);
    expect(checkOverlaps(history), seeded).toEqual([]);
  });

  for (const step of STEPS) {
    describe(step.name, () => {
      const window = () => {
        const f = faults.find((w) => w.name === step.name);
        if (f === undefined) throw new Error(`the fault '${step.name}' did not run`);
        return f;
      };

      it(`no call failed; at most ${SLOW_SHARE * 100} % of calls took over ${SLOW_MS} ms, and ${STEADY_SLOW_SHARE * 100} % once the fault was no news`, () => {
        const f = window();
        const all = latencies(f.injectedAt, f.healStartedAt);
        const steadyFrom = (f.electedAfterMs === undefined ? f.injectedAt : f.start + f.electedAfterMs) + STEADY_AFTER_MS;
        const steady = latencies(steadyFrom, f.healStartedAt);
        const heldMs = Math.round(f.healStartedAt - f.injectedAt);
        const errors = all.calls.filter((o) => o.outcome === 'error');
        console.log(
          `[hung-member] ${step.name}: held ${heldMs} ms${f.electedAfterMs === undefined ? '' : `, new leader after ${Math.round(f.electedAfterMs)} ms`}; ` +
            `${all.calls.length} calls, ${errors.length} failed, ${all.slow} over ${SLOW_MS} ms (${percent(all.share)}), ` +
            `p50 ${all.p50} ms, p99 ${all.p99} ms, max ${all.max} ms; from ${STEADY_AFTER_MS} ms after ${f.electedAfterMs === undefined ? 'the fault' : 'the new leader'}: ` +
            `${steady.calls.length} calls, ${steady.slow} over ${SLOW_MS} ms (${percent(steady.share)}), p99 ${steady.p99} ms, max ${steady.max} ms`,
        );
        expect(all.calls.length, 'not vacuous: the holders kept calling').toBeGreaterThan(heldMs / 100);
        expect(errors, seeded).toEqual([]);
        expect(all.share, `${all.slow} of ${all.calls.length} calls over ${SLOW_MS} ms; ${seeded}`).toBeLessThanOrEqual(SLOW_SHARE);
        expect(steady.share, `${steady.slow} of ${steady.calls.length} calls over ${SLOW_MS} ms; ${seeded}`).toBeLessThanOrEqual(STEADY_SLOW_SHARE);
      });

      it(`getLeaseOwner and getLease all answered, none after the caller's ${CALLER_OWNER_READ_BOUND_MS / 1000} s`, () => {
        const f = window();
        const reads = ownerReads.filter((r) => r.sentAt >= f.injectedAt && r.sentAt <= f.healStartedAt);
        const slowest = Math.round(Math.max(0, ...reads.map((r) => r.ms)));
        const expectedMs = (f.electedAfterMs ?? 0) + OWNER_READ_AFTER_LEADER_MS;
        console.log(
          `[hung-member] ${step.name}: ${reads.length} owner reads, ${reads.filter((r) => r.ms > SLOW_MS).length} over ${SLOW_MS} ms, ` +
            `slowest ${slowest} ms (the election + ${OWNER_READ_AFTER_LEADER_MS} ms: ${Math.round(expectedMs)} ms${slowest > expectedMs ? ', passed on this run' : ''})`,
        );
        expect(reads.length).toBeGreaterThan(10);
        expect(reads.filter((r) => r.error !== undefined), seeded).toEqual([]);
        expect(slowest, seeded).toBeLessThanOrEqual(CALLER_OWNER_READ_BOUND_MS);
      });
    });
  }
});
