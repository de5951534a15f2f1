import { afterEach, describe, expect, it } from 'vitest';
import type { LeaseEvent } from '../../src/index.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';

// A member that hangs (SIGSTOP, or a blackholed network) must cost a caller at most about one
// attempt timeout, not the whole deadline: the per-host circuit breaker sends the next attempt elsewhere.
const etcd = useEtcdCluster();
const ATTEMPT_MS = 500;
const DEADLINE_MS = 20_000;

afterEach(async () => {
  for (let i = 0; i < etcd.cluster.size; i++) await etcd.cluster.heal(i);
});

async function sequentialCalls(count: number, onEvent?: (e: LeaseEvent) => void) {
  const p = etcd.provider({ attemptTimeoutMs: ATTEMPT_MS, deadlineMs: DEADLINE_MS, ...(onEvent ? { onEvent } : {}) });
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const startedAt = performance.now();
    expect(await p.acquireLease(`k${i}`, 'A', 5000)).toMatchObject({ acquired: true });
    latencies.push(performance.now() - startedAt);
  }
  return latencies;
}

describe('a hung member', () => {
  it('a paused follower never stalls a call for the whole deadline, and no call fails', async () => {
    const leader = await etcd.cluster.leader();
    const follower = (leader + 1) % etcd.cluster.size;
    await etcd.cluster.pause(follower);
    try {
      const events: LeaseEvent[] = [];
      const latencies = await sequentialCalls(30, (e) => events.push(e));
      // bounded by a few attempt timeouts (breaker needs two failures), far below the deadline
      expect(Math.max(...latencies)).toBeLessThan(DEADLINE_MS / 4);
      // the paused member's circuit opened, and it was the only one (others kept answering)
      const opened = events.filter((e) => e.type === 'circuit' && e.state === 'open');
      expect(opened.length).toBeGreaterThan(0);
      expect(new Set(opened.map((e) => (e.type === 'circuit' ? e.endpoint : '')))).toEqual(new Set([etcd.cluster.endpoint(follower)]));
    } finally {
      await etcd.cluster.resume(follower);
    }
  });

  it('a blackholed follower never stalls a call for the whole deadline, and no call fails', async () => {
    const leader = await etcd.cluster.leader();
    const follower = (leader + 2) % etcd.cluster.size;
    await etcd.cluster.blackhole(follower);
    const latencies = await sequentialCalls(30);
    expect(Math.max(...latencies)).toBeLessThan(DEADLINE_MS / 4);
  });
});
