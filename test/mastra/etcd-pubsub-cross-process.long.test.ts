/**
 * Multi-pod Mastra on etcd alone: three worker processes, each its own `@mastra/core` 1.71 with
 * `pubsub: new EtcdPubSub(...)` on the harness cluster, sharing no socket and no host resource —
 * only etcd, as pods do. The same scenarios run on a control fleet whose pods each have their own
 * `UnixSocketPubSub` with leases via `withEtcdLeases` (how `examples/kubernetes` was wired before):
 * there a message routed to the owner on another pod cannot arrive, and the test asserts that it
 * is lost, so a harness that could not reach the loss would fail here instead of passing vacuously.
 *
 * As in agent-thread-cross-process.long.test.ts, every model turn is held until the test releases it,
 * and the scenarios stay clear of Mastra 1.71's own losses (each process sends once per wave, and
 * messages to an owner are only sent while its turn is held).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { EtcdLeaseProvider } from '../../src/provider.js';
import { startCluster } from '../harness/cluster.js';
import type { TestCluster } from '../harness/cluster.js';
import { waitFor } from '../support/wait.js';
import { killOwnerAndTakeOver } from './support/owner-takeover.js';
import { admitted, send, threadFor, watch } from './support/thread-commands.js';
import { WorkerFleet } from './support/worker-fleet.js';
import type { WorkerProcess } from './support/worker-fleet.js';

/** Short enough to keep the suite quick, long enough for etcd's 2 s minimum lease and a busy machine. */
const TTL_MS = 3000;
/** How long past its TTL a key may live: the provider's lease bucket (1 s) plus etcd's expiry sweep. */
const EXPIRY_SLACK_MS = 2500;
/** Four waves of three messages show every routed message arriving; two show the control losing them. */
const WAVES = 4;
const CONTROL_WAVES = 2;

let cluster: TestCluster;
let observer: EtcdLeaseProvider;
let dir: string;
let prefix: string;
let fleet: WorkerFleet | undefined;
let testNo = 0;

beforeAll(async () => {
  cluster = await startCluster();
  dir = await mkdtemp(join(tmpdir(), 'mastra-etcd-pubsub-'));
  prefix = `mastra-pods/${process.pid}/lease/`;
  observer = new EtcdLeaseProvider({ hosts: cluster.endpoints(), prefix });
});

afterAll(async () => {
  await observer?.close();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && fleet) console.error(fleet.describe());
  await fleet?.stop();
  fleet = undefined;
});

function startFleet(transport: 'etcd' | 'socket-per-pod', ...ids: string[]): Promise<WorkerProcess[]> {
  testNo += 1;
  fleet = new WorkerFleet({
    ETCD_ENDPOINTS: cluster.endpoints().join(','),
    TRANSPORT: transport,
    SOCKET_PATH: join(dir, `pod-${testNo}.sock`),
    LEASE_PREFIX: prefix,
    EVENT_PREFIX: `mastra-pods/${process.pid}/events-${testNo}/`,
    MASTRA_AGENT_THREAD_LEASE_TTL_MS: String(TTL_MS),
  });
  return fleet.start(...ids);
}

const thread = (name: string) => threadFor(testNo, name);

/**
 * Lets the thread go idle: releases every held turn of a live worker (follow-up turns for admitted
 * messages start as earlier ones end) until none is held and the thread's lease is free in etcd.
 */
async function settle(f: WorkerFleet, key: string): Promise<void> {
  await waitFor(
    'the thread to go idle (no held turn, lease free)',
    async () => {
      const held = f.heldTurns().filter((turn) => f.worker(turn.worker).alive);
      for (const turn of held) await f.release(turn);
      return held.length === 0 && (await observer.getLeaseOwner(key)) === undefined;
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );
}

/**
 * Waves of messages to one thread, one from every pod per wave, sent together. The winner's first
 * turn is held until the other pods' messages reached it (or, for the control, until `admitWaitMs`
 * shows they will not), then the thread is let go idle before the next wave. Returns what was sent.
 */
async function sendWaves(workers: WorkerProcess[], target: ReturnType<typeof thread>, waves: number, admitWaitMs: number | undefined): Promise<string[]> {
  const sent: string[] = [];
  for (let wave = 1; wave <= waves; wave++) {
    const texts = workers.map((w) => `wave-${wave}-from-${w.id}`);
    sent.push(...texts);
    const accepted = await Promise.all(workers.map((w, i) => send(w, texts[i]!, target)));
    const wakes = accepted.filter((r) => r.action === 'wake');
    expect(wakes).toHaveLength(1);
    const winner = fleet!.worker(wakes[0]!.worker);
    for (const loser of accepted.filter((r) => r !== wakes[0])) {
      expect(loser.action).toBe('deliver');
      expect(loser.runId).toBe(wakes[0]!.runId);
    }
    await Promise.all(
      accepted.filter((r) => r !== wakes[0]).map((r) => admitted(winner, r.text, admitWaitMs).catch(() => undefined)),
    );
    await settle(fleet!, target.key);
  }
  return sent;
}

describe('multi-pod Mastra 1.71 on EtcdPubSub (no shared socket)', () => {
  it('rapid waves from all pods to one thread: never two runs at once, every message run', async () => {
    const workers = await startFleet('etcd', 'a', 'b', 'c');
    const target = thread('waves');
    await watch(workers, target);

    const sent = await sendWaves(workers, target, WAVES, undefined);

    const ran = new Set(fleet!.turns().flatMap((t) => t.texts));
    expect(sent.filter((text) => !ran.has(text))).toEqual([]);
    expect(fleet!.overlappingTurns()).toEqual([]);
    expect(fleet!.reportsOf('lease-error')).toEqual([]);
  });

  it('control: the same waves with a UnixSocketPubSub per pod lose the messages routed to another pod', async () => {
    const workers = await startFleet('socket-per-pod', 'a', 'b', 'c');
    const target = thread('control');
    await watch(workers, target);

    // The routed messages cannot arrive; waiting a second for each shows it without stalling the suite.
    const sent = await sendWaves(workers, target, CONTROL_WAVES, 1000);

    const ran = new Set(fleet!.turns().flatMap((t) => t.texts));
    const lost = sent.filter((text) => !ran.has(text));
    // Every wave's two routed messages are lost: only the waking message of each wave runs.
    expect(lost.length).toBe(2 * CONTROL_WAVES);
    expect(fleet!.overlappingTurns()).toEqual([]);
  });

  it('owner SIGKILLed mid-run: a survivor takes the thread over once the TTL passes, never before', async () => {
    const [victim, survivor] = await startFleet('etcd', 'victim', 'survivor', 'bystander');
    const target = thread('killed');
    await killOwnerAndTakeOver({
      fleet: fleet!,
      observer,
      victim: victim!,
      survivor: survivor!,
      target,
      ttlMs: TTL_MS,
      expirySlackMs: EXPIRY_SLACK_MS,
      finish: () => settle(fleet!, target.key),
    });
  });

  it('a run longer than the TTL keeps its lease, and messages from the other pods join it and run', async () => {
    const [a, b, c] = await startFleet('etcd', 'a', 'b', 'c');
    const target = thread('long');
    await watch([a!], target);

    const started = performance.now();
    const long = await send(a!, 'long-run', target);
    expect(long.action).toBe('wake');
    const longTurn = await fleet!.until('the long turn', () => fleet!.heldTurns()[0]);

    await waitFor('2 TTLs to pass', () => performance.now() - started > 2 * TTL_MS, { timeoutMs: 3 * TTL_MS + 5000, intervalMs: 50 });
    expect(await observer.getLeaseOwner(target.key)).toBe(long.runId);
    const joined = await Promise.all([send(b!, 'join-from-b', target), send(c!, 'join-from-c', target)]);
    for (const r of joined) {
      expect(r.action).toBe('deliver');
      expect(r.runId).toBe(long.runId);
    }
    await Promise.all(joined.map((r) => admitted(a!, r.text)));
    const renewals = a!.reports.filter((r) => r.type === 'lease-held' && r.operation === 'renewLease' && r.key === target.key);
    expect(renewals.length).toBeGreaterThanOrEqual(2);

    await fleet!.release(longTurn);
    await settle(fleet!, target.key);
    const ran = new Set(fleet!.turns().flatMap((t) => t.texts));
    expect(['long-run', 'join-from-b', 'join-from-c'].filter((t) => !ran.has(t))).toEqual([]);
    expect(fleet!.turns().filter((t) => t.worker !== 'a')).toEqual([]);
    expect(fleet!.overlappingTurns()).toEqual([]);
    expect(a!.reports.filter((r) => r.type === 'lease-error')).toEqual([]);
  });
});
