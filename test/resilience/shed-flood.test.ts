import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isLeaseError, type EtcdLeaseProvider, type LeaseHandle, type LeaseLostError } from '../../src/index.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';

// A flood of fresh work — reads of keys nobody holds — past what the cluster commits, beside held leases.
// Shedding must take the flood, not the leases: a shed call is no answer yet, so a hold() handle renews again within
// its window and a waiter tries again within its timeout; a renewal whose lease is still open is shed only after fresh
// work, and one that is due goes before it. Capacity is made small on purpose (followers PEER_LATENCY_MS away, BATCH
// operations a transaction), so a flood a small machine can make is well past it.
const etcd = useEtcdCluster();
const PEER_LATENCY_MS = 100;
const BATCH = 4;
const TTL_MS = 3000;
/** Callers in the flood, each calling again as soon as it is answered (a pause after a shed call, so none spins). */
const FLOODERS = 2000;
const SHED_PAUSE_MS = 200;
const FLOOD_MS = 2 * TTL_MS;

let leader: number;
beforeAll(async () => {
  leader = await etcd.cluster.leader();
  for (let i = 0; i < etcd.cluster.size; i++) if (i !== leader) await etcd.cluster.setLatency(i, PEER_LATENCY_MS);
});
afterEach(async () => {
  await etcd.cluster.healAll();
  for (let i = 0; i < etcd.cluster.size; i++) if (i !== leader) await etcd.cluster.setLatency(i, PEER_LATENCY_MS);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const provider = (prefix = etcd.uniquePrefix()) => etcd.provider({ prefix, hosts: [etcd.cluster.endpoint(leader)], maxBatchSize: BATCH });
const code = (error: unknown) => (isLeaseError(error) ? error.code : String(error));

/** Fresh work on `p` for `ms`: reads of keys nobody holds, each caller reading again as soon as it is answered. */
async function flood(p: EtcdLeaseProvider, ms: number): Promise<{ answered: number; shed: number }> {
  const counts = { answered: 0, shed: 0 };
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: FLOODERS }, async (_, i) => {
      while (performance.now() < until) {
        try {
          await p.getLeaseOwner(`absent-${i}`);
          counts.answered++;
        } catch (error) {
          if (code(error) === 'ELEASE_OVERLOADED') counts.shed++;
          await sleep(SHED_PAUSE_MS);
        }
      }
    }),
  );
  return counts;
}

/** Keys under `prefix` whose value names `owner`, as etcd has them now. */
async function heldBy(prefix: string, owner: string, keys: string[]): Promise<string[]> {
  const raw = etcd.rawClient();
  const all = await raw.getAll().prefix(prefix).strings();
  return keys.filter((k) => all[`${prefix}${k}`] === owner);
}

describe('shedding beside held leases', () => {
  it('hold() handles through a flood of reads: no handle ends, no key is lost (the flood is shed instead)', async () => {
    const prefix = etcd.uniquePrefix();
    const p = provider(prefix);
    const keys = Array.from({ length: 20 }, (_, i) => `held-${i}`);
    const handles: LeaseHandle[] = await Promise.all(keys.map((k) => p.hold(k, 'A', TTL_MS, { timeoutMs: 10_000 })));
    const { answered, shed } = await flood(p, FLOOD_MS);
    const ended = handles.filter((h) => h.signal.aborted).map((h) => `${h.key}: ${(h.signal.reason as LeaseLostError).reason}`);
    const present = await heldBy(prefix, 'A', keys);
    console.info(`read flood of ${FLOOD_MS} ms: ${answered} answered, ${shed} shed; ${ended.length} of ${keys.length} handles ended, ${present.length} keys still held`);
    expect(shed, 'precondition: the flood was past capacity (calls were shed)').toBeGreaterThan(100);
    expect(ended).toEqual([]);
    expect(present).toEqual(keys);
    await Promise.all(handles.map((h) => h.release()));
  });

  it('waiters through a flood wait within their own timeout: none rejects with ELEASE_OVERLOADED, each wins once the key is free', async () => {
    const prefix = etcd.uniquePrefix();
    const p = provider(prefix);
    const holder = provider(prefix);
    const keys = Array.from({ length: 10 }, (_, i) => `wanted-${i}`);
    for (const k of keys) expect((await holder.acquireLease(k, 'H', 60_000)).acquired).toBe(true);
    const waits = keys.map((k) => p.waitForLease(k, 'B', TTL_MS, { timeoutMs: 20_000 }).then((r) => (r.acquired ? 'won' : 'not won'), code));
    const flooding = flood(p, FLOOD_MS);
    // The keys come free while the flood runs: every waiter's acquire then competes with it.
    await sleep(500);
    await Promise.all(keys.map((k) => holder.releaseLease(k, 'H')));
    const { shed } = await flooding;
    const outcomes = await Promise.all(waits);
    console.info(`waiters through a flood (${shed} shed): ${outcomes.join(', ')}`);
    expect(shed, 'precondition: the flood was past capacity (calls were shed)').toBeGreaterThan(100);
    expect(outcomes).toEqual(keys.map(() => 'won'));
  });
});
