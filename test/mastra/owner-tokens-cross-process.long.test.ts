/**
 * Long, JSON-shaped owner tokens across processes on one etcd cluster: a small lease client (fixtures/owner-token-driver.ts,
 * one process per client instance) owns each run under a token fresh for every attempt — `lease-owner:` + JSON
 * `[runId, sourceId, uuid]` —, hands a finishing run's lease to the next with `transferLease`, and in fail-closed mode
 * turns a rejected acquire into an admission error followed by one owner read that it bounds at 5 s. No Mastra release
 * owns leases this way (@mastra/core 1.71 uses the bare run id); the pattern exercises what any such client needs of
 * the provider: exact long owners, gap-free transfers, and a typed rejection within the deadline.
 * What the real 1.71 runtime does on its idle wake when etcd cannot be reached runs on 1.71 itself
 * (fixtures/thread-worker.ts), at the end of this file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { EtcdLeaseProvider } from '../../src/provider.js';
import { startCluster } from '../harness/cluster.js';
import type { TestCluster } from '../harness/cluster.js';
import { waitFor } from '../support/wait.js';
import type { Reply } from './support/owner-token-drivers.js';
import { DriverProcess, startDrivers } from './support/owner-token-drivers.js';
import { send, threadFor } from './support/thread-commands.js';
import { WorkerFleet } from './support/worker-fleet.js';

const TTL_MS = 3000;
/** The provider's per-call deadline in these processes: below the driver's 5 s bound on its owner read. */
const DEADLINE_MS = 2000;
/** How long past its TTL a key may live: the provider's lease bucket (1 s) plus etcd's expiry sweep. */
const EXPIRY_SLACK_MS = 2500;
/** Room for a busy machine on top of a deadline. */
const SCHEDULING_SLACK_MS = 1500;

let cluster: TestCluster;
let observer: EtcdLeaseProvider;
let prefix: string;
let dir: string;
let testNo = 0;
const running: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  cluster = await startCluster();
  prefix = `owner-tokens/${process.pid}/`;
  observer = new EtcdLeaseProvider({ hosts: cluster.endpoints(), prefix });
  dir = await mkdtemp(join(tmpdir(), 'owner-tokens-'));
});

afterAll(async () => {
  await observer?.close();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

afterEach(async (context) => {
  await cluster.healAll();
  if (context.task.result?.state === 'fail') for (const r of running) console.error((r as { describe?: () => string }).describe?.());
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

/** A thread key as Mastra builds it: resource and thread joined by a NUL byte. */
function threadKey(name: string): string {
  testNo += 1;
  return `resource-${testNo}\u0000${name}`;
}

async function drivers(ids: string[], extra: Record<string, string> = {}): Promise<DriverProcess[]> {
  const env = { ETCD_ENDPOINTS: cluster.endpoints().join(','), LEASE_PREFIX: prefix, TTL_MS: String(TTL_MS), DEADLINE_MS: String(DEADLINE_MS), ...extra };
  const started = await startDrivers(env, ...ids);
  running.push(...started);
  return started;
}

/** Reads the owner from etcd back to back until stopped; every read is linearizable. */
function pollOwner(key: string) {
  const samples: (string | undefined)[] = [];
  let polling = true;
  const done = (async () => {
    while (polling) samples.push(await observer.getLeaseOwner(key));
  })();
  return {
    samples,
    async stop() {
      polling = false;
      await done;
      return samples;
    },
  };
}

async function blackholeAll(): Promise<void> {
  for (let i = 0; i < cluster.members().length; i++) await cluster.blackhole(i);
}

/**
 * What a fail-closed caller must see when it cannot reach the cluster: an admission error whose cause is the
 * provider's typed, retryable EtcdUnavailableError within the deadline, then an owner read that the provider itself
 * settles (a typed error, well before the driver's 5 s bound) as unreadable. Throws otherwise.
 */
function expectFailedClosed(reply: Reply): void {
  expect(reply).toMatchObject({
    type: 'admission-error',
    reason: 'lease-unavailable',
    cause: { name: 'EtcdUnavailableError', code: 'ELEASE_UNAVAILABLE', retryable: true },
    reconciled: { status: 'unreadable', settledBy: 'provider' },
  });
  if (reply.type !== 'admission-error') return;
  expect(reply.elapsedMs).toBeLessThanOrEqual(DEADLINE_MS + SCHEDULING_SLACK_MS);
  expect(reply.reconciled.elapsedMs).toBeLessThanOrEqual(DEADLINE_MS + SCHEDULING_SLACK_MS);
}

/** Three processes attempt one run id at once, each under the token it mints for that attempt. */
async function retryOneRunId(variant?: string) {
  const processes = await drivers(['a', 'b', 'c'], variant ? { VARIANT: variant } : {});
  const key = threadKey('retry');
  const replies = await Promise.all(processes.map((d) => d.call({ cmd: 'acquire', key, runId: 'run-1', failClosed: true })));
  return { processes, key, replies };
}

/** Exactly one attempt holds the thread; the others learn its exact token and the run id decoded from it. Returns it. */
function expectOneHolder(replies: Reply[]): Extract<Reply, { type: 'acquired' }> {
  const won = replies.filter((r): r is Extract<Reply, { type: 'acquired' }> => r.type === 'acquired');
  expect(won).toHaveLength(1);
  const winner = won[0]!;
  for (const lost of replies.filter((r) => r !== winner)) expect(lost).toMatchObject({ type: 'lost', holder: winner.token, holderRunId: 'run-1' });
  return winner;
}

/**
 * The holder of `key` runs r1, then hands the lease to r2 and to r3, each under a fresh token, while two other
 * processes keep trying to wake the thread (every attempt a new run, so a new token) and the key is read back to back.
 */
async function handOverTwice(variant?: string) {
  const [a, b, c] = await drivers(['a', 'b', 'c'], variant ? { VARIANT: variant } : {});
  const key = threadKey('handover');
  expect((await a!.call({ cmd: 'acquire', key, runId: 'r1', failClosed: true })).type).toBe('acquired');
  const poll = pollOwner(key);
  await waitFor('the owner poller to start', () => poll.samples.length >= 3, { timeoutMs: 10_000 });
  let trying = true;
  const attempts: Reply[] = [];
  const contenders = [b!, c!].map(async (d) => {
    for (let i = 0; trying; i++) attempts.push(await d.call({ cmd: 'acquire', key, runId: `${d.id}-run-${i}`, failClosed: true }));
  });
  let handOvers: Reply[] = [];
  let samples: (string | undefined)[] = [];
  try {
    await waitFor('a first attempt by each contender', () => new Set(attempts.map((r) => r.worker)).size === 2, { timeoutMs: 10_000 });
    const second = await a!.call({ cmd: 'transfer', key, fromRunId: 'r1', toRunId: 'r2' });
    const third = await a!.call({ cmd: 'transfer', key, fromRunId: 'r2', toRunId: 'r3' });
    handOvers = [second, third];
    const last = third.type === 'transferred' && third.held ? third.token : undefined;
    await waitFor('a read after the second hand-over', () => (last === undefined || poll.samples.at(-1) === last ? true : undefined), { timeoutMs: 10_000 });
  } finally {
    trying = false;
    await Promise.all(contenders);
    samples = await poll.stop();
  }
  return { a: a!, b: b!, key, handOvers, attempts, samples };
}

/** Both hand-overs held, no attempt by another process won, the key was never free and its owners went r1, r2, r3. */
function expectGapFree(handOvers: Reply[], attempts: Reply[], samples: (string | undefined)[]): void {
  for (const h of handOvers) expect(h).toMatchObject({ type: 'transferred', held: true });
  expect(attempts.filter((r) => r.type !== 'lost')).toEqual([]);
  expect(samples.filter((owner) => owner === undefined)).toEqual([]);
  const order = [samples[0], ...handOvers.map((h) => (h as { token?: string }).token)];
  const changes = samples.filter((owner, i) => i === 0 || owner !== samples[i - 1]).map((owner) => order.indexOf(owner));
  expect(changes).toEqual([0, 1, 2].filter((i) => changes.includes(i)));
  expect(changes.at(-1)).toBe(2);
}

describe('long JSON-shaped owner tokens, fresh per attempt (a driver of the pattern), leases on etcd', () => {
  it('a fresh token per attempt: of three processes retrying one run id, exactly one holds the thread and keeps it', async () => {
    const { processes, key, replies } = await retryOneRunId();
    const winner = expectOneHolder(replies);
    expect(winner.token).toMatch(/^lease-owner:\["run-1","[0-9a-f-]{36}","[0-9a-f-]{36}"\]$/);
    expect(await observer.getLeaseOwner(key)).toBe(winner.token);

    // Kept by the interval renewals (which do not wait for each other) past two TTLs.
    const holder = processes.find((d) => d.id === winner.worker)!;
    const poll = pollOwner(key);
    await waitFor('three renewals', () => holder.renewals('run-1').filter((r) => r.renewed).length >= 3, { timeoutMs: 3 * TTL_MS + 5000 });
    const samples = await poll.stop();
    expect(samples.length).toBeGreaterThan(10);
    expect(samples.filter((owner) => owner !== winner.token)).toEqual([]);

    // A later attempt of the same run id in another process mints a new token and still loses; once the holder's
    // awaited release answers, a retry wins under a token of its own.
    const other = processes.find((d) => d !== holder)!;
    expect(await other.call({ cmd: 'acquire', key, runId: 'run-1', failClosed: true })).toMatchObject({ type: 'lost', holder: winner.token });
    expect(await holder.call({ cmd: 'release', key, runId: 'run-1' })).toMatchObject({ type: 'released', error: null });
    expect(await observer.getLeaseOwner(key)).toBeUndefined();
    const retry = await other.call({ cmd: 'acquire', key, runId: 'run-1', failClosed: true });
    expect(retry.type).toBe('acquired');
    if (retry.type === 'acquired') expect(retry.token).not.toBe(winner.token);
  });

  it('negative control: with the bare run id as owner, the one-holder check flags three winners', async () => {
    // The contract makes an acquire by the current owner idempotent, so equal owners are one owner.
    const { replies } = await retryOneRunId('run-id-owner');
    expect(replies.map((r) => r.type)).toEqual(['acquired', 'acquired', 'acquired']);
    expect(() => expectOneHolder(replies)).toThrow();
  });

  it('hand-over by transfer to a fresh token: the key is never free, and processes trying meanwhile never win', async () => {
    const { a, b, key, handOvers, attempts, samples } = await handOverTwice();
    expectGapFree(handOvers, attempts, samples);
    // Only the last run's awaited release frees the thread; then a contender's next attempt wins.
    expect(await a.call({ cmd: 'release', key, runId: 'r3' })).toMatchObject({ type: 'released', error: null });
    expect((await b.call({ cmd: 'acquire', key, runId: 'b-after', failClosed: true })).type).toBe('acquired');
  });

  it('negative control: the gap-free check flags a hand-over that releases and then acquires', async () => {
    const { handOvers, attempts, samples } = await handOverTwice('gap-transfer');
    expect(() => expectGapFree(handOvers, attempts, samples)).toThrow();
  });

  it('fail-closed against an unreachable cluster: a typed error within the deadline, an unreadable owner read, nothing claimed', async () => {
    const [a] = await drivers(['a']);
    const key = threadKey('unreachable');
    await blackholeAll();
    const reply = await a!.call({ cmd: 'acquire', key, runId: 'run-x', failClosed: true }, 30_000);
    expectFailedClosed(reply);
    await cluster.healAll();

    // The caller started nothing: no renewal ever ran. An attempt held in a cut link may still land after the heal;
    // then the key carries the failed attempt's token until its TTL ends, and then it is free.
    expect(a!.renewals('run-x')).toEqual([]);
    await waitFor('the key to be free', async () => ((await observer.getLeaseOwner(key)) === undefined ? true : undefined), {
      timeoutMs: TTL_MS + EXPIRY_SLACK_MS + DEADLINE_MS + 5000,
    });
    expect((await a!.call({ cmd: 'acquire', key, runId: 'run-y', failClosed: true })).type).toBe('acquired');
  });

  it('negative control: the fail-closed check flags a provider that reports a rejected acquire as won', async () => {
    const [a] = await drivers(['a'], { VARIANT: 'guess-on-error' });
    const key = threadKey('guessing');
    await blackholeAll();
    const reply = await a!.call({ cmd: 'acquire', key, runId: 'run-x', failClosed: true }, 30_000);
    expect(reply.type).toBe('acquired');
    expect(() => expectFailedClosed(reply)).toThrow();
  });
});

describe('@mastra/core 1.71, idle wake, when etcd cannot be reached', () => {
  function fleetWith(extra: Record<string, string>): WorkerFleet {
    const fleet = new WorkerFleet({
      ETCD_ENDPOINTS: cluster.endpoints().join(','),
      SOCKET_PATH: join(dir, `bus-${testNo}.sock`),
      LEASE_PREFIX: prefix,
      MASTRA_AGENT_THREAD_LEASE_TTL_MS: String(TTL_MS),
      DEADLINE_MS: String(DEADLINE_MS),
      ...extra,
    });
    running.push(fleet);
    return fleet;
  }

  it("onAcquireError: 'deny' on the idle wake: no run starts (the message is dropped), the typed lease error comes within the deadline, nothing is claimed", async () => {
    testNo += 1;
    const fleet = fleetWith({ ON_ACQUIRE_ERROR: 'deny' });
    const [w] = await fleet.start('w');
    const target = threadFor(testNo, 'denied');
    await blackholeAll();
    const accepted = await send(w!, 'while-unreachable', target);
    const sent = w!.reports.find((r) => r.type === 'sent' && r.text === 'while-unreachable')!;
    const leaseError = w!.reports.find((r) => r.type === 'lease-error' && r.operation === 'acquireLease');
    await cluster.healAll();

    // 1.71 reports `deliver` for a denied acquire (to no owner), and the message is not run.
    expect(accepted.action).toBe('deliver');
    expect(fleet.turns()).toEqual([]);
    expect(leaseError).toMatchObject({ code: 'ELEASE_UNAVAILABLE' });
    expect(leaseError!.at - sent.at).toBeLessThanOrEqual(DEADLINE_MS + SCHEDULING_SLACK_MS);
    await waitFor('the thread key to be free', async () => ((await observer.getLeaseOwner(target.key)) === undefined ? true : undefined), {
      timeoutMs: TTL_MS + EXPIRY_SLACK_MS + DEADLINE_MS + 5000,
    });

    // Once etcd answers again, the next message wakes the thread as usual.
    const after = await send(w!, 'after-heal', target);
    expect(after.action).toBe('wake');
    await fleet.drain(['after-heal']);
    await fleet.releaseAll();
  });

  it("the default, 'throw', is fail-open on the idle wake: 1.71 runs the message although the acquire failed", async () => {
    testNo += 1;
    const fleet = fleetWith({});
    const [w] = await fleet.start('w');
    const target = threadFor(testNo, 'thrown');
    await blackholeAll();
    const accepted = await send(w!, 'while-unreachable', target);
    // 1.71 counts the rejected acquire as won and starts the turn without a lease.
    expect(accepted.action).toBe('wake');
    const turn = await fleet.until('the turn', () => fleet.heldTurns()[0]);
    const acquireErrors = w!.reports.filter((r) => r.type === 'lease-error' && r.operation === 'acquireLease');
    expect(acquireErrors.length).toBeGreaterThanOrEqual(1);
    expect(acquireErrors.every((r) => r.type === 'lease-error' && r.code === 'ELEASE_UNAVAILABLE')).toBe(true);
    await cluster.healAll();
    await fleet.release(turn);
    await fleet.releaseAll();
  });
});
