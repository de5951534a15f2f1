import type { Etcd3 } from 'etcd3';
import { EtcdLeaseProvider } from './provider-under-test.js';
import { runLoad, type LoadResult } from './load.js';
import { revokeAllLeases } from './reset.js';
import { BENCH_PREFIX, ownerToken } from './scenarios/scenario.js';

export interface HeldLeasesResult {
  /** `burst`: every key as fast as the callers go; `spread`: keys arriving at a steady rate. */
  arrival: 'burst' | 'spread';
  keys: number;
  /** How long the arrivals were spread over (0 for a burst). */
  spreadMs: number;
  /** Keys actually held once the acquires finished (read back from etcd). */
  keysHeld: number;
  ttlMs: number;
  /** Every live lease in the cluster (`LeaseLeases`), which starts this phase at zero. */
  liveLeases: number;
  /** Distinct etcd leases the held keys are attached to. */
  leasesCarryingKeys: number;
  load: LoadResult;
}

export interface HeldLeasesOptions {
  keys: number;
  callers: number;
  /** Spread the acquires evenly over this long; 0 = one burst. */
  spreadMs: number;
  timeLimitMs: number;
}

/**
 * Holds `keys` distinct leases with one TTL through a fresh provider and counts etcd leases.
 * Every live lease is revoked first, so the count is exactly what this provider created; a lease per
 * key would show `keys` here, the pool about one lease per bucket of elapsed time.
 *
 * Why two arrival patterns: a pool's lease count grows with the time over which keys arrive, not with
 * their number, so a burst of 20k keys in a second or two shows only how few leases one bucket
 * needs. Keys arriving over half the TTL — what a busy Mastra deployment does — show how many leases
 * the pool keeps live in steady state. The TTL is 60 s so that no key expires while they are counted.
 */
export async function measureHeldLeases(etcd: Etcd3, hosts: string[], options: HeldLeasesOptions): Promise<HeldLeasesResult> {
  const ttlMs = 60_000;
  const arrival = options.spreadMs > 0 ? 'spread' : 'burst';
  const prefix = `${BENCH_PREFIX}held-${arrival}/`;
  await revokeAllLeases(etcd); // also removes the keys of an earlier phase, which were on those leases
  const provider = new EtcdLeaseProvider({ hosts, prefix });
  try {
    const load = await runLoad(
      async (caller, seq) => (await provider.acquireLease(`resource-held\u0000thread-${seq}`, ownerToken(caller), ttlMs)).acquired,
      {
        callers: options.callers,
        durationMs: options.timeLimitMs,
        maxOps: options.keys,
        intervalMs: options.spreadMs / options.keys,
      },
    );
    const { leases } = await etcd.leaseClient.leaseLeases();
    const held = await leasesOfKeys(etcd, prefix);
    return {
      arrival,
      keys: options.keys,
      spreadMs: options.spreadMs,
      keysHeld: held.keys,
      ttlMs,
      liveLeases: leases.length,
      leasesCarryingKeys: held.leases.size,
      load,
    };
  } finally {
    await provider.close();
  }
}

/**
 * Lease ids of every key under `prefix`, read in pages of keys only: 20k full values would come close
 * to gRPC's 4 MiB message limit.
 */
async function leasesOfKeys(etcd: Etcd3, prefix: string): Promise<{ keys: number; leases: Set<string> }> {
  const rangeEnd = Buffer.from(prefix);
  rangeEnd[rangeEnd.length - 1]!++; // the first key after every key starting with prefix
  const leases = new Set<string>();
  let keys = 0;
  let from = Buffer.from(prefix);
  for (let page = 0; page < 1000; page++) {
    const res = await etcd.kv.range({ key: from, range_end: rangeEnd, keys_only: true, limit: 5000 });
    for (const kv of res.kvs) leases.add(kv.lease);
    keys += res.kvs.length;
    const last = res.kvs.at(-1);
    if (!res.more || !last) break;
    from = Buffer.concat([last.key, Buffer.from([0])]); // the next possible key after the last one read
  }
  return { keys, leases };
}
