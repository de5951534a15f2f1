import { afterEach, describe, expect, it } from 'vitest';
import { EtcdUnavailableError, type LeaseEvent } from '../../src/index.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';

// A member that hangs (SIGSTOP, or a blackholed network) must cost a caller at most about one
// attempt timeout, not the whole deadline: its circuit opens and the next attempt goes elsewhere (transport/member-health.ts).
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
      // bounded by about one attempt timeout (the member's circuit opens on its first failure), far below the deadline
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

describe('getLease on a slow member', () => {
  it('finishes within one deadline: its read and its lease TTL request share the budget', async () => {
    const LINK_LATENCY_MS = 500;
    const leader = await etcd.cluster.leader();
    const slow = (leader + 1) % etcd.cluster.size;
    const prefix = etcd.uniquePrefix();
    await etcd.provider({ prefix }).acquireLease('k', 'A', 60_000);
    await etcd.cluster.setLatency(slow, LINK_LATENCY_MS);
    // Attempts as long as the deadline: only the call's budget may cut a request short.
    const p = etcd.provider({ prefix, hosts: [etcd.cluster.endpoint(slow)], attemptTimeoutMs: 20_000, deadlineMs: 20_000 });
    expect(await p.getLeaseOwner('k')).toBe('A'); // connects: the handshake is not what is measured
    let startedAt = performance.now();
    await p.getLeaseOwner('k');
    const readMs = performance.now() - startedAt;
    startedAt = performance.now();
    expect(await p.getLease('k')).toMatchObject({ owner: 'A' });
    const fullMs = performance.now() - startedAt;
    // Room for the read, not for the read and the TTL request: a getLease that gave each request a full budget
    // would answer at about fullMs, after the deadline; one budget ends the call at the deadline.
    const deadlineMs = Math.round(readMs + (fullMs - readMs) / 2);
    startedAt = performance.now();
    const outcome = await p.getLease('k', { deadlineMs }).catch((e: unknown) => e);
    const boundedMs = performance.now() - startedAt;
    console.info(`getLease through a member ${LINK_LATENCY_MS} ms away: read ${Math.round(readMs)} ms, read + TTL ${Math.round(fullMs)} ms; with a ${deadlineMs} ms deadline it ended after ${Math.round(boundedMs)} ms`);
    expect(fullMs - readMs, 'precondition: the TTL request itself takes a link round trip').toBeGreaterThan(LINK_LATENCY_MS);
    expect(outcome).toBeInstanceOf(EtcdUnavailableError);
    expect(boundedMs).toBeLessThan(deadlineMs + 250);
  });
});
