import { describe, expect, it } from 'vitest';
import type { EtcdLeaseProvider } from '../../src/index.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { elapse } from '../support/wait.js';

// How many etcd leases a workload costs. Keys whose deadlines fall in one bucket share a pooled lease, so live leases
// (and LeaseGrants, each a Raft write) are bounded by buckets, not by calls.
//
// The cluster runs with --election-timeout 5000, so etcd's minimum lease TTL is ceil(1.5 × 5 s) ≈ 8 s and it raises
// every shorter grant to that. A pool that judged a lease by the TTL etcd granted (8 s) instead of the one it asked
// for (3 s) would find no lease that fits a 2 s call within its slack and grant one per call: 40 acquires, 40 leases.
const etcd = useEtcdCluster({ electionTimeoutMs: 5000 });
const CALLS = 40;

/** Leases granted since `before` (ids from leaseLeases), and the leases the keys are on. */
async function leaseUse(p: EtcdLeaseProvider, keys: string[], before: Set<string>): Promise<{ granted: string[]; onKeys: Set<string> }> {
  const raw = etcd.rawClient();
  const granted = (await raw.leaseClient.leaseLeases()).leases.map((l) => l.ID).filter((id) => !before.has(id));
  const onKeys = new Set<string>();
  for (const key of keys) onKeys.add((await raw.get(p.prefix + key).exec()).kvs[0]!.lease);
  return { granted, onKeys };
}

async function liveLeases(): Promise<Set<string>> {
  return new Set((await etcd.rawClient().leaseClient.leaseLeases()).leases.map((l) => l.ID));
}

describe("a server minimum TTL far above the callers' ttlMs", () => {
  it(`${CALLS} acquires with ttl 2 s, one after another, ride on at most 2 etcd leases`, async () => {
    const before = await liveLeases();
    const p = etcd.provider();
    const keys = Array.from({ length: CALLS }, (_, i) => `k${i}`);
    for (const key of keys) expect(await p.acquireLease(key, 'A', 2000)).toMatchObject({ acquired: true });
    const { granted, onKeys } = await leaseUse(p, keys, before);
    // Precondition: etcd really raised the lease TTL (else this test could not fail).
    const ttl = await etcd.rawClient().leaseClient.leaseTimeToLive({ ID: [...onKeys][0]! });
    expect(Number(ttl.grantedTTL)).toBeGreaterThanOrEqual(7);
    console.info(`min TTL ${ttl.grantedTTL} s: ${CALLS} sequential acquires with ttl 2 s used ${granted.length} etcd lease(s)`);
    expect(granted.length).toBeLessThanOrEqual(2);
    expect(onKeys.size).toBeLessThanOrEqual(2);
  });

  // A burst on a cold pool: every call must join the one grant in flight rather than start its own. A pool that
  // compared a waiting call's deadline with a grant's notBefore too strictly (one measured from the grant's start, not
  // from the call's) gave 3 leases here and 64 below.
  it(`${CALLS} acquires with ttl 2 s at once, on a fresh provider, ride on at most 2 etcd leases`, async () => {
    const before = await liveLeases();
    const p = etcd.provider();
    const keys = Array.from({ length: CALLS }, (_, i) => `k${i}`);
    for (const r of await Promise.all(keys.map((key) => p.acquireLease(key, 'A', 2000)))) expect(r).toMatchObject({ acquired: true });
    const { granted } = await leaseUse(p, keys, before);
    console.info(`min TTL: ${CALLS} concurrent acquires with ttl 2 s on a cold pool used ${granted.length} etcd lease(s)`);
    expect(granted.length).toBeLessThanOrEqual(2);
  });
});

describe('bursts of concurrent calls', () => {
  // The same, for later bursts on a warm pool (that pool granted 64 for the cold burst and 44–64 for each later one).
  it('a burst of 64 acquires, cold and then every 1.1 s, grants at most 2 leases per burst', async () => {
    const p = etcd.provider();
    const perBurst: number[] = [];
    for (let burst = 0; burst < 4; burst++) {
      const before = await liveLeases();
      const keys = Array.from({ length: 64 }, (_, i) => `b${burst}-${i}`);
      const results = await Promise.all(keys.map((key) => p.acquireLease(key, 'A', 10_000)));
      for (const r of results) expect(r).toMatchObject({ acquired: true });
      perBurst.push((await leaseUse(p, [], before)).granted.length);
      // Past the bucket: the previous burst's leases no longer fit this one's deadlines.
      await elapse(1100);
    }
    console.info(`bursts of 64 concurrent acquires (ttl 10 s) granted ${perBurst.join(', ')} lease(s)`);
    for (const n of perBurst) expect(n).toBeLessThanOrEqual(2);
  });
});
