import type { Etcd3 } from 'etcd3';
import { encodeLeaseValue } from '../../../src/keys/lease-value.js';

/**
 * Many leases, written the fast way — raw transactions of 128 puts (etcd's default --max-txn-ops), several in
 * flight — shaped like a Mastra deployment's: thread keys `resourceId \0 threadId` (some with non-ASCII),
 * 125-character owners (one busy worker holds a third of the keys, 299 others share the rest), run metadata on
 * every 10th lease (NUL inside on every 100th), keys pooled on 40 etcd leases of four TTLs, and every 1000th key
 * on no lease at all. Returns what a correct listing and `stats` must report.
 */
export interface SeededLeases {
  prefix: string;
  /** Every key, in the order written. */
  keys: string[];
  perOwner: Map<string, number>;
  withMetadata: number;
  /** Distinct etcd leases the keys are attached to. */
  etcdLeases: number;
  /** Keys on no etcd lease. */
  noLease: number;
  /** Keys per granted TTL (seconds). */
  perTtlSeconds: Map<number, number>;
  /** A lightly loaded owner and how many keys it holds (for `--owner`). */
  someOwner: { owner: string; leases: number };
}

/** TTLs chosen to sit well inside one `stats` bucket each for the few minutes a test runs. */
export const SEED_TTLS_S = [290, 880, 3500, 7200];
const ETCD_LEASES = 40;
const TXN_OPS = 128;
const IN_FLIGHT = 8;

/** A 125-character owner, as a Mastra worker's JSON-ish token would be. */
function seedOwner(n: number): string {
  const head = `mastra-worker:{"pod":"agents-7f9c8d5b6-${String(n).padStart(4, '0')}","pid":${10_000 + n},"boot":"2025-11-30T12:00:00.000Z","nonce":"`;
  return `${head}${'x'.repeat(125 - head.length - 2)}"}`;
}

function seedKey(i: number): string {
  const resource = i % 7 === 0 ? `résumé-${i % 500}` : `resource-${i % 500}`;
  return `${resource}\u0000thread-${String(i).padStart(6, '0')}`;
}

export async function seedLeases(client: Etcd3, prefix: string, count: number): Promise<SeededLeases> {
  const leaseIds: string[] = [];
  for (let j = 0; j < ETCD_LEASES; j++) {
    const granted = await client.leaseClient.leaseGrant({ TTL: SEED_TTLS_S[j % SEED_TTLS_S.length]! });
    leaseIds.push(granted.ID);
  }
  const seeded: SeededLeases = {
    prefix,
    keys: [],
    perOwner: new Map(),
    withMetadata: 0,
    etcdLeases: 0,
    noLease: 0,
    perTtlSeconds: new Map(),
    someOwner: { owner: seedOwner(1), leases: 0 },
  };
  const used = new Set<string>();
  const puts: Array<{ request_put: { key: Buffer; value: Buffer; lease: string } }> = [];
  for (let i = 0; i < count; i++) {
    const key = seedKey(i);
    const owner = seedOwner(i % 3 === 0 ? 0 : (i % 299) + 1);
    const metadata = i % 10 === 0 ? (i % 100 === 0 ? `run\u0000${i}` : `run-${i}`) : undefined;
    const onLease = i % 1000 !== 999;
    const lease = onLease ? leaseIds[i % ETCD_LEASES]! : '0';
    seeded.keys.push(key);
    seeded.perOwner.set(owner, (seeded.perOwner.get(owner) ?? 0) + 1);
    if (metadata !== undefined) seeded.withMetadata++;
    if (onLease) {
      used.add(lease);
      const ttl = SEED_TTLS_S[(i % ETCD_LEASES) % SEED_TTLS_S.length]!;
      seeded.perTtlSeconds.set(ttl, (seeded.perTtlSeconds.get(ttl) ?? 0) + 1);
    } else seeded.noLease++;
    puts.push({ request_put: { key: Buffer.from(prefix + key), value: encodeLeaseValue(owner, metadata), lease } });
  }
  seeded.etcdLeases = used.size;
  seeded.someOwner = { owner: seedOwner(1), leases: seeded.perOwner.get(seedOwner(1)) ?? 0 };
  let next = 0;
  const writer = async (): Promise<void> => {
    while (next < puts.length) {
      const batch = puts.slice(next, (next += TXN_OPS));
      await client.kv.txn({ success: batch });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, writer));
  return seeded;
}
