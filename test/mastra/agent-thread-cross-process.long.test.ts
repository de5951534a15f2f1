/**
 * The real `@mastra/core` 1.71 agent-thread runtime, several processes, one etcd cluster.
 *
 * Each worker (fixtures/thread-worker.ts) is its own Mastra instance with one agent on a
 * scripted model; events travel through a shared `UnixSocketPubSub`, leases through etcd via
 * `withEtcdLeases`. Every model turn is held until the test releases it, so the test decides
 * when a run ends instead of guessing durations, and "one run at a time" is checked on the
 * workers' own clock stamps. The parent reads the lease owner straight from etcd.
 *
 * Known 1.71 behaviours these scenarios stay clear of (they occur with any lease backend):
 * a process's second message sent while its first still waits on `acquireLease` can be dropped;
 * a message accepted as `deliver` just after the owner's last turn ended can be lost; messages
 * routed to a killed owner are lost until its lease expires. So each process sends once per
 * phase, and messages to an owner are only sent while its turn is held.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { EtcdLeaseProvider } from '../../src/provider.js';
import { startCluster } from '../harness/cluster.js';
import type { TestCluster } from '../harness/cluster.js';
import { WorkerFleet } from './support/worker-fleet.js';
import { killOwnerAndTakeOver } from './support/owner-takeover.js';
import { admitted, send, threadFor, watch } from './support/thread-commands.js';
import { waitFor } from '../support/wait.js';

/** Short enough to keep the suite quick, long enough for etcd's 2 s minimum lease and a busy machine. */
const TTL_MS = 3000;
/** How long past its TTL a key may live: the provider's lease bucket (1 s) plus etcd's expiry sweep. */
const EXPIRY_SLACK_MS = 2500;

let cluster: TestCluster;
let observer: EtcdLeaseProvider;
let dir: string;
let prefix: string;
let fleet: WorkerFleet;
let testNo = 0;

beforeAll(async () => {
  cluster = await startCluster();
  dir = await mkdtemp(join(tmpdir(), 'mastra-xproc-'));
  prefix = `mastra-xproc/${process.pid}/`;
  observer = new EtcdLeaseProvider({ hosts: cluster.endpoints(), prefix });
});

afterAll(async () => {
  await observer?.close();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  testNo += 1;
  fleet = new WorkerFleet({
    ETCD_ENDPOINTS: cluster.endpoints().join(','),
    SOCKET_PATH: join(dir, `bus-${testNo}.sock`),
    LEASE_PREFIX: prefix,
    MASTRA_AGENT_THREAD_LEASE_TTL_MS: String(TTL_MS),
  });
});

afterEach(async (context) => {
  await Promise.allSettled([...polls].map((poll) => poll.stop()));
  if (context.task.result?.state === 'fail') console.error(fleet.describe());
  await fleet.stop();
});

const thread = (name: string) => threadFor(testNo, name);

const polls = new Set<{ stop(): Promise<unknown> }>();

/** Reads the owner from etcd back to back until stopped; every read is linearizable. */
function pollOwner(key: string) {
  const samples: { at: number; owner: string | undefined }[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const owner = await observer.getLeaseOwner(key);
      samples.push({ at: performance.timeOrigin + performance.now(), owner });
    }
  })();
  const poll = {
    samples,
    async stop() {
      running = false;
      polls.delete(poll);
      await done;
      return samples;
    },
  };
  polls.add(poll);
  return poll;
}

describe('agent threads across processes, leases on etcd', () => {
  it('rapid messages to one thread from 3 processes: one run at a time, none lost', async () => {
    const [a, b, c] = await fleet.start('a', 'b', 'c');
    const target = thread('rapid');
    const texts = ['from-a', 'from-b', 'from-c'];
    await watch([a!, b!, c!], target);

    const accepted = await Promise.all([send(a!, texts[0]!, target), send(b!, texts[1]!, target), send(c!, texts[2]!, target)]);

    // Exactly one process won the lease and woke the thread; the others routed their message to it.
    const wakes = accepted.filter((r) => r.action === 'wake');
    expect(wakes).toHaveLength(1);
    const winner = wakes[0]!;
    for (const loser of accepted.filter((r) => r !== winner)) {
      expect(loser.action).toBe('deliver');
      expect(loser.runId).toBe(winner.runId);
    }
    expect(await observer.getLeaseOwner(target.key)).toBe(winner.runId);

    // The losers' messages reach the winner while its first turn is still held.
    const winnerWorker = fleet.worker(winner.worker);
    await Promise.all(accepted.filter((r) => r !== winner).map((r) => admitted(winnerWorker, r.text)));
    await fleet.drain(texts);

    expect(fleet.overlappingTurns()).toEqual([]);
    const seen = new Set(fleet.turns().flatMap((t) => t.texts));
    expect([...seen].sort()).toEqual([...texts].sort());
    expect(new Set(fleet.turns().map((t) => t.worker))).toEqual(new Set([winner.worker]));

    await fleet.releaseAll();
    await waitFor('the thread lease to be released', async () => (await observer.getLeaseOwner(target.key)) === undefined, { timeoutMs: 10_000 });
  });

  it('a finished run hands the thread to its queued follow-up without the lease ever being free', async () => {
    const [a, b] = await fleet.start('a', 'b');
    const target = thread('handoff');

    const first = await send(a!, 'first', target);
    expect(first.action).toBe('wake');
    const firstTurn = await fleet.until('the first turn', () => fleet.heldTurns()[0]);
    expect(await observer.getLeaseOwner(target.key)).toBe(first.runId);

    // A follow-up queued behind the active run gets its own run id; Mastra moves the lease
    // to it with transferLease when the first run completes.
    a!.send({ cmd: 'queue', text: 'follow-up', ...target });
    const queued = await a!.next('accepted', (r) => r.text === 'follow-up');
    expect(queued.action).toBe('deliver');
    expect(queued.runId).not.toBe(first.runId);

    const poll = pollOwner(target.key);
    await waitFor('the owner poller to start', () => poll.samples.length >= 3, { timeoutMs: 10_000 });
    // Meanwhile another process keeps trying to wake the thread, one message at a time:
    // through the real runtime, it must find the thread owned every time.
    let probing = true;
    const probes: Awaited<ReturnType<typeof send>>[] = [];
    const prober = (async () => {
      for (let i = 0; probing; i++) probes.push(await send(b!, `probe-${i}`, target));
    })();
    await waitFor('a first probe', () => probes.length >= 1, { timeoutMs: 10_000 });

    await fleet.release(firstTurn);
    // Probes delivered to the first run may give it more turns; the follow-up comes after them.
    const followUp = await fleet
      .releaseUntil('the follow-up turn', (t) => t.texts.includes('follow-up'))
      .then(async (turn) => {
        await waitFor('a read after the follow-up turn started', () => poll.samples.some((s) => s.at > turn.at), { timeoutMs: 10_000 });
        return turn;
      })
      .catch((error: unknown) => error as Error);
    probing = false;
    await prober;
    const samples = await poll.stop();

    expect(probes.filter((p) => p.action !== 'deliver')).toEqual([]);
    expect(samples.filter((s) => s.owner === undefined)).toEqual([]);
    // The owner moved from the first run to the follow-up (possibly through runs started for
    // probes the first run had admitted), never through "free".
    if (followUp instanceof Error) throw followUp;
    expect(samples[0]!.owner).toBe(first.runId);
    expect(samples.at(-1)!.owner).toBe(queued.runId);
    // Fast enough to see a gap: reads every few ms across the handoff.
    expect(samples.length).toBeGreaterThan(20);

    await fleet.drain(['first', 'follow-up']);
    await fleet.releaseAll();
    expect(fleet.turns().filter((t) => t.worker !== 'a')).toEqual([]);
    expect(fleet.overlappingTurns()).toEqual([]);
  });

  it('a SIGKILLed owner: another process takes the thread over once the TTL passes, never before', async () => {
    // The broker of the unix-socket bus is the first worker; the victim is another one, so the
    // survivors keep their event transport and only the lease is in question.
    const [broker, victim, survivor] = await fleet.start('broker', 'victim', 'survivor');
    await killOwnerAndTakeOver({
      fleet,
      observer,
      victim: victim!,
      survivor: survivor!,
      target: thread('killed'),
      ttlMs: TTL_MS,
      expirySlackMs: EXPIRY_SLACK_MS,
      finish: async () => {
        await fleet.drain(['after-ttl']);
        await fleet.releaseAll();
      },
    });
    expect(broker!.reports.filter((r) => r.type === 'turn-start')).toEqual([]);
  });

  it('a run longer than the TTL keeps its lease through renewals', async () => {
    const [a, b] = await fleet.start('a', 'b');
    const target = thread('long');
    await watch([a!], target);

    const started = performance.now();
    const long = await send(a!, 'long-run', target);
    expect(long.action).toBe('wake');
    const longTurn = await fleet.until('the long turn', () => fleet.heldTurns()[0]);

    // Hold the run for 2.5 TTLs, reading the owner all along: it must never change or lapse.
    const poll = pollOwner(target.key);
    await waitFor('2.5 TTLs to pass', () => performance.now() - started > 2.5 * TTL_MS, { timeoutMs: 3 * TTL_MS + 5000, intervalMs: 50 });
    // Past the TTL, another process still finds the thread owned by the long run.
    const late = await send(b!, 'after-ttl-elapsed', target);
    const samples = await poll.stop();

    expect(late.action).toBe('deliver');
    expect(late.runId).toBe(long.runId);
    expect(samples.length).toBeGreaterThan(10);
    expect(samples.filter((s) => s.owner !== long.runId)).toEqual([]);
    expect(samples.at(-1)!.at - samples[0]!.at).toBeGreaterThan(TTL_MS);
    expect(a!.reports.filter((r) => r.type === 'lease-error')).toEqual([]);
    // Kept by renewals, not by a long first lease: at least two renewals during the hold.
    const renewals = a!.reports.filter((r) => r.type === 'lease-held' && r.operation === 'renewLease' && r.key === target.key);
    expect(renewals.length).toBeGreaterThanOrEqual(2);

    await admitted(a!, 'after-ttl-elapsed');
    await fleet.release(longTurn);
    await fleet.drain(['long-run', 'after-ttl-elapsed']);
    await fleet.releaseAll();
    expect(fleet.overlappingTurns()).toEqual([]);
    await waitFor('the thread lease to be released', async () => (await observer.getLeaseOwner(target.key)) === undefined, { timeoutMs: 10_000 });
  });
});
