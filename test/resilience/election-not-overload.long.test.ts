import { describe, expect, it } from 'vitest';
import { EtcdLeaseProvider, isLeaseError } from '../../src/index.js';
import { startCluster, type ClusterOptions } from '../harness/cluster.js';
import { waitFor } from '../support/wait.js';

// While a hung leader's election runs nothing commits, and work piles up behind it. That is no news about what the
// cluster can commit: once a new leader is there, the backlog is a second or two of ordinary load, far below capacity,
// and none of it may be shed. A window in which nothing was answered never counts as the cluster's capacity.
//
// The load is low — about 1100 operations a second (mostly renewals, which share transactions), a small share of what a
// 3-member cluster on this machine commits — but what it leaves waiting during an election (1–3 s at etcd's default,
// 2.5–5 s with a 2.5 s election timeout), even counting only what waits less than an attempt timeout, is more than
// the queue's lowest bound (one full round of the pipeline: 4 × 128).
const TTL_MS = 3000;
const HELD_KEYS = 900;
/** Every TICK_MS: FRESH_PER_TICK acquires of fresh keys (each released once won) and as many reads. */
const TICK_MS = 10;
const FRESH_PER_TICK = 1;
const WARM_UP_MS = 3000;
/** Held after the new leader is known: the backlog drains and the load goes on. */
const AFTER_ELECTION_MS = 4000;

const code = (error: unknown) => (isLeaseError(error) ? error.code : String(error));

async function hangTheLeader(cluster: ClusterOptions): Promise<{ results: Map<string, number>; electedAfterMs: number }> {
  const etcd = await startCluster(cluster);
  const p = new EtcdLeaseProvider({ hosts: etcd.endpoints(), prefix: `election/${process.pid}/` });
  const results = new Map<string, number>();
  const count = (r: string) => results.set(r, (results.get(r) ?? 0) + 1);
  const inFlight = new Set<Promise<unknown>>();
  const track = (call: Promise<unknown>) => {
    const settled = call.then((r) => count(String(r)), (error: unknown) => count(code(error)));
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  };
  const timers: NodeJS.Timeout[] = [];
  let paused: number | undefined;
  try {
    const keys = Array.from({ length: HELD_KEYS }, (_, i) => `held-${i}`);
    await Promise.all(keys.map((k) => p.acquireLease(k, 'A', TTL_MS)));
    // Mastra's cadence for the held keys: a renewal every ttl/3 that does not wait for the previous one.
    keys.forEach((k, i) => timers.push(setInterval(() => track(p.renewLease(k, 'A', TTL_MS)), TTL_MS / 3 + (i % 7))));
    let fresh = 0;
    timers.push(
      setInterval(() => {
        for (let j = 0; j < FRESH_PER_TICK; j++) {
          const key = `fresh-${fresh++}`;
          track(p.acquireLease(key, 'F', TTL_MS).then((r) => (r.acquired ? p.releaseLease(key, 'F').then(() => 'won') : 'taken')));
          track(p.getLeaseOwner(`held-${fresh % HELD_KEYS}`).then((owner) => (owner === 'A' ? 'read' : `read ${owner}`)));
        }
      }, TICK_MS),
    );
    await new Promise((r) => setTimeout(r, WARM_UP_MS));
    const leader = await etcd.leader();
    const leaderId = (await etcd.status(leader))!.memberId;
    const pausedAt = performance.now();
    paused = leader;
    await etcd.pause(leader);
    // A new leader, as a member that is not the hung one reports it.
    await waitFor('a new leader', async () => {
      const seen = await etcd.status((leader + 1) % etcd.size);
      return seen !== undefined && seen.leaderId !== '0' && seen.leaderId !== leaderId;
    }, { timeoutMs: 30_000, intervalMs: 50 });
    const electedAt = performance.now();
    await new Promise((r) => setTimeout(r, AFTER_ELECTION_MS));
    for (const t of timers) clearInterval(t);
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    return { results, electedAfterMs: electedAt - pausedAt };
  } finally {
    for (const t of timers) clearInterval(t);
    if (paused !== undefined) await etcd.resume(paused).catch(() => {});
    await p.close();
    await etcd.stop();
  }
}

describe('a hung leader at low load: its election is not taken for overload', () => {
  for (const [name, cluster] of [
    ["etcd's default election timeout", {}],
    ['a 2.5 s election timeout', { electionTimeoutMs: 2500 }],
  ] as const) {
    it(`${name}: no call is shed with ELEASE_OVERLOADED`, async () => {
      const { results, electedAfterMs } = await hangTheLeader(cluster);
      const total = [...results.values()].reduce((a, b) => a + b, 0);
      console.info(`hung leader, ${name}: new leader after ${Math.round(electedAfterMs)} ms; ${total} calls: ${[...results].map(([r, n]) => `${r} ${n}`).join(', ')}`);
      expect(total, 'not vacuous: the load ran').toBeGreaterThan(3000);
      expect(results.get('ELEASE_OVERLOADED') ?? 0).toBe(0);
    });
  }
});
