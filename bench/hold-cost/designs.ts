import { CompareResult, CompareTarget, type Etcd3, type Lock } from 'etcd3';
import type { Redis } from 'ioredis';
import { forEachLimited } from '../infra/limited.js';
import { EtcdLeaseProvider } from '../provider-under-test.js';
import { BENCH_PREFIX, ownerToken } from '../scenarios/scenario.js';
import { RenewTally, RenewTimers, type RenewCounts } from './renew-timers.js';
import { takeKey } from './take-key.js';

export interface HoldClients {
  etcd: Etcd3;
  hosts: string[];
  redis: Redis;
}

/** Keys being held, renewed on Mastra's cadence until `stop()`. */
export interface Holding {
  take(): RenewCounts;
  /** Stops renewing and removes what the hold created (keys, leases), outside any measured window. */
  stop(): Promise<void>;
}

export interface HoldDesign {
  readonly id: string;
  readonly label: string;
  /** false for Redis: no etcd proposals or member CPU to read. */
  readonly onEtcd: boolean;
  /** Takes `keys` fresh keys with `ttlMs`, then renews each every ttl/3 on its own timer. */
  hold(clients: HoldClients, keys: number, ttlMs: number, runId: string): Promise<Holding>;
}

/** Callers taking the keys before the hold starts (untimed). */
const SETUP_CALLERS = 64;
/**
 * How long taking the keys may take at most. etcd3's `Lock.acquire` never settles when its session lease is lost
 * while it waits (10 000 locks at TTL 3 s here): past this the design could not hold that many, and the run goes on.
 */
const SETUP_DEADLINE_MS = 180_000;

/** `setup`, or a rejection once SETUP_DEADLINE_MS has passed (what it started is cleared by the revoke after every hold). */
async function withinSetupDeadline(setup: Promise<void>, keys: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`taking ${keys} keys took over ${SETUP_DEADLINE_MS / 1000} s`)), SETUP_DEADLINE_MS);
  });
  try {
    await Promise.race([setup, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** This provider: acquireLease, then renewLease per key on its own timer (what Mastra's runtime does). */
export const providerHold: HoldDesign = {
  id: 'provider',
  label: 'this provider (renewLease)',
  onEtcd: true,
  async hold({ hosts }, keys, ttlMs, runId) {
    const provider = new EtcdLeaseProvider({ hosts, prefix: `${BENCH_PREFIX}hold/${runId}/` });
    const owner = ownerToken(0);
    const key = (i: number) => `resource-hold\u0000thread-${i}`;
    const tally = new RenewTally();
    const timers = new RenewTimers(ttlMs / 3, (i) => provider.renewLease(key(i), owner, ttlMs), tally);
    await forEachLimited(range(keys), SETUP_CALLERS, async (i) => {
      await takeKey(provider, key(i), owner, ttlMs);
      timers.start(i);
    });
    return {
      take: () => tally.take(),
      async stop() {
        await timers.stop();
        await provider.close(); // its keys go with the cluster-wide lease revoke that follows every hold
      },
    };
  },
};

/**
 * The naive etcd design: a lease per key, kept alive over one shared LeaseKeepAlive stream (as etcd's Go client
 * does), one keep-alive per key every ttl/3 on its own timer. etcd 3.4 answers keep-alives on the leader without a
 * Raft proposal; each key costs a live lease, and a leader change resets them all.
 */
const leasePerKeyHold: HoldDesign = {
  id: 'lease-per-key',
  label: 'lease per key + keep-alive',
  onEtcd: true,
  async hold({ etcd }, keys, ttlMs, runId) {
    const ids: string[] = new Array(keys);
    const value = Buffer.from(ownerToken(0));
    const stream = await etcd.leaseClient.leaseKeepAlive();
    const waiting = new Map<string, Array<(ok: boolean) => void>>();
    stream.on('data', (res: { ID: string; TTL: string }) => {
      const queue = waiting.get(res.ID);
      const answer = queue?.shift();
      if (queue?.length === 0) waiting.delete(res.ID);
      answer?.(Number(res.TTL) > 0);
    });
    stream.on('error', () => {});
    const tally = new RenewTally();
    const timers = new RenewTimers(
      ttlMs / 3,
      (i) =>
        new Promise<boolean>((resolve) => {
          const id = ids[i]!;
          const queue = waiting.get(id) ?? [];
          queue.push(resolve);
          waiting.set(id, queue);
          stream.write({ ID: id });
        }),
      tally,
    );
    await withinSetupDeadline(
      forEachLimited(range(keys), SETUP_CALLERS, async (i) => {
        const { ID } = await etcd.leaseClient.leaseGrant({ TTL: Math.ceil(ttlMs / 1000) });
        ids[i] = ID;
        const key = Buffer.from(`${BENCH_PREFIX}hold-lpk/${runId}/${i}`);
        await etcd.kv.txn({
          compare: [{ key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
          success: [{ request_put: { key, value, lease: ID } }],
          failure: [],
        });
        timers.start(i);
      }),
      keys,
    ).catch(async (error: unknown) => {
      await timers.stop();
      stream.end();
      throw error;
    });
    return {
      take: () => tally.take(),
      async stop() {
        for (const queue of waiting.values()) for (const answer of queue) answer(false);
        waiting.clear();
        await timers.stop();
        stream.end();
      },
    };
  },
};

/**
 * etcd3's own `Lock` per key with the hold's TTL: a session lease per lock that etcd3 keeps alive itself (a
 * keep-alive stream per lease, every ttl/3). etcd3's `Election` campaigns hold their leader key the same way.
 */
const etcdLockHold: HoldDesign = {
  id: 'etcd3-lock',
  label: 'etcd3 Lock sessions',
  onEtcd: true,
  async hold({ etcd }, keys, ttlMs, runId) {
    const locks: Lock[] = new Array(keys);
    const tally = new RenewTally();
    await withinSetupDeadline(
      forEachLimited(range(keys), SETUP_CALLERS, async (i) => {
        const lock = etcd.lock(`${BENCH_PREFIX}hold-lock/${runId}/${i}`).ttl(Math.ceil(ttlMs / 1000));
        await lock.acquire();
        locks[i] = lock;
      }),
      keys,
    );
    // Lock keeps its lease private; the keep-alives are counted on the Lease events etcd3 emits.
    for (const lock of locks) {
      const lease = (lock as unknown as { lease?: NodeJS.EventEmitter }).lease;
      let firedAt = 0;
      lease?.on('keepaliveFired', () => (firedAt = performance.now()));
      lease?.on('keepaliveSucceeded', () => tally.answered(performance.now() - firedAt, true));
      lease?.on('keepaliveFailed', (error: unknown) => tally.answered(performance.now() - firedAt, false, error));
    }
    return {
      take: () => tally.take(),
      async stop() {
        await forEachLimited(locks, SETUP_CALLERS, (lock) => lock.release().catch(() => {}));
      },
    };
  },
};

/** Redis, as Mastra users run leases today: SET NX PX to take, SET XX PX every ttl/3 to renew. */
const redisHold: HoldDesign = {
  id: 'redis',
  label: 'Redis SET PX renewals',
  onEtcd: false,
  async hold({ redis }, keys, ttlMs, runId) {
    const value = ownerToken(0);
    const key = (i: number) => `bench:hold:${runId}:${i}`;
    const tally = new RenewTally();
    const timers = new RenewTimers(ttlMs / 3, async (i) => (await redis.set(key(i), value, 'PX', ttlMs, 'XX')) === 'OK', tally);
    await forEachLimited(range(keys), SETUP_CALLERS, async (i) => {
      if ((await redis.set(key(i), value, 'PX', ttlMs, 'NX')) !== 'OK') throw new Error(`hold setup: redis key ${i} taken`);
      timers.start(i);
    });
    return {
      take: () => tally.take(),
      async stop() {
        await timers.stop();
        for (let i = 0; i < keys; i += 1000) await redis.del(...range(Math.min(1000, keys - i)).map((j) => key(i + j)));
      },
    };
  },
};

export const HOLD_DESIGNS: readonly HoldDesign[] = [providerHold, leasePerKeyHold, etcdLockHold, redisHold];
