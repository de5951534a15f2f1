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
import type { WorkerProcess } from './support/worker-fleet.js';
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

function thread(name: string) {
  const resourceId = `resource-${testNo}`;
  const threadId = `${name}-${testNo}`;
  return { resourceId, threadId, key: `${resourceId}\u0000${threadId}` };
}

/** Every worker reports the thread's runtime events from now on (see `watch` in the worker). */
async function watch(workers: WorkerProcess[], target: { resourceId: string; threadId: string }) {
  for (const worker of workers) worker.send({ cmd: 'watch', ...target });
  await Promise.all(workers.map((worker) => worker.next('watching')));
}

/**
 * Resolves once `owner` has received the message `text` that another process routed to it.
 * Its runtime admits the message in the same delivery, long before a release sent after this
 * resolves can reach it: releasing earlier could end the run before the message arrives.
 */
function admitted(owner: WorkerProcess, text: string) {
  return owner.next('thread-event', (r) => r.event === 'signal-enqueued' && r.contents === text);
}

function send(worker: WorkerProcess, text: string, target: { resourceId: string; threadId: string }) {
  worker.send({ cmd: 'send', text, ...target });
  return worker.next('accepted', (r) => r.text === text);
}

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
    const target = thread('killed');

    const first = await send(victim!, 'before-kill', target);
    expect(first.action).toBe('wake');
    await fleet.until('the victim turn', () => fleet.heldTurns().find((t) => t.worker === 'victim'));
    await waitFor('the victim to own the thread', async () => (await observer.getLeaseOwner(target.key)) === first.runId, { timeoutMs: 10_000 });

    await victim!.kill();
    const killedAt = victim!.killedAt!;

    // While the dead owner's lease is live, the thread is not free: the message is routed to
    // the dead run (and lost — that is what the TTL bounds), no second run starts.
    const during = await send(survivor!, 'during-ttl', target);
    expect(during.action).toBe('deliver');
    expect(during.runId).toBe(first.runId);

    await waitFor('the dead owner lease to expire', async () => (await observer.getLeaseOwner(target.key)) === undefined, {
      timeoutMs: TTL_MS + EXPIRY_SLACK_MS + 5000,
      intervalMs: 20,
    });
    const freedAt = performance.timeOrigin + performance.now();
    // etcd may keep a key past its TTL but never drops it early: the thread stayed owned for
    // at least TTL after the last lease write the victim sent (as far as its reports reached us).
    const lastHeld = Math.max(...victim!.reports.flatMap((r) => (r.type === 'lease-held' && r.key === target.key ? [r.sentAt] : [])));
    expect(freedAt - lastHeld).toBeGreaterThanOrEqual(TTL_MS - 50);
    // ... and not much longer: the provider's lease bucket and etcd's expiry sweep, with room for a busy machine.
    expect(freedAt - killedAt).toBeLessThanOrEqual(TTL_MS + EXPIRY_SLACK_MS + 3000);

    const after = await send(survivor!, 'after-ttl', target);
    expect(after.action).toBe('wake');
    expect(await observer.getLeaseOwner(target.key)).toBe(after.runId);
    await fleet.drain(['after-ttl']);
    await fleet.releaseAll();

    const takeover = fleet.turnIntervals().find((t) => t.texts.includes('after-ttl'))!;
    expect(takeover.worker).toBe('survivor');
    expect(takeover.start).toBeGreaterThan(killedAt);
    expect(fleet.overlappingTurns()).toEqual([]);
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
