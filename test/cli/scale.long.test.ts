import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { CliProcess, cleanEnv, runCli } from './support/cli-process.js';
import { peakRssProbe } from './support/peak-rss.js';
import { SEED_TTLS_S, seedLeases, type SeededLeases } from './support/seed-leases.js';

// Tens of thousands of Mastra thread leases under one prefix: listing them in one response would exceed gRPC's
// "Received message larger than max", so the CLI pages. One cluster and one data set for the whole file.
const LEASES = 50_000;
const etcd = useEtcdCluster();
let seeded: SeededLeases;

beforeAll(async () => {
  seeded = await seedLeases(etcd.rawClient(), etcd.uniquePrefix(), LEASES);
}, 120_000);

function connection(): string[] {
  return ['--endpoints', etcd.cluster.endpoints().join(','), '--prefix', seeded.prefix];
}

interface ListedLease {
  key: string;
  owner: string;
  metadata?: string;
  fencingToken: string;
  ttlRemainingMs: number | null;
}

describe(`etcd-lease with ${LEASES} leases under one prefix`, () => {
  const probe = peakRssProbe();
  afterAll(() => probe.dispose());

  it('list --json prints every lease exactly once, as one valid JSON array, in flat memory', async () => {
    const started = performance.now();
    const result = await runCli(['list', '--json', ...connection()], cleanEnv(probe.env), 90_000, { nodeArgs: probe.nodeArgs });
    const seconds = (performance.now() - started) / 1000;

    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as ListedLease[];
    expect(rows).toHaveLength(LEASES);
    expect(new Set(rows.map((r) => r.key))).toEqual(new Set(seeded.keys));
    // Metadata appears exactly on the leases that have it, NUL and all.
    expect(rows.filter((r) => 'metadata' in r)).toHaveLength(seeded.withMetadata);
    expect(rows.find((r) => r.key === seeded.keys[100])).toMatchObject({ metadata: 'run\u0000100' });
    expect(rows.filter((r) => r.ttlRemainingMs === null)).toHaveLength(seeded.noLease);
    const peakMb = probe.read();
    console.info(`list --json, ${LEASES} leases: ${seconds.toFixed(1)} s, peak RSS ${peakMb.toFixed(0)} MB (CLI from sources, through tsx)`);
    expect(peakMb).toBeLessThan(200);
  });

  it('--count agrees with the listing, and with --owner counts that owner\'s leases', async () => {
    const all = await runCli(['list', '--count', ...connection()]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.trim()).toBe(String(LEASES));

    const owner = await runCli(['list', '--count', '--owner', seeded.someOwner.owner, ...connection()]);
    expect(owner.stdout.trim()).toBe(String(seeded.someOwner.leases));
  });

  it('--owner lists only that owner\'s leases; --limit stops after N; --ndjson prints one object per line', async () => {
    const owned = await runCli(['list', '--ndjson', '--owner', seeded.someOwner.owner, ...connection()]);
    expect(owned.code, owned.stderr).toBe(0);
    const rows = owned.stdout.trim().split('\n').map((line) => JSON.parse(line) as ListedLease);
    expect(rows).toHaveLength(seeded.someOwner.leases);
    expect(rows.every((r) => r.owner === seeded.someOwner.owner)).toBe(true);

    const limited = await runCli(['list', '--json', '--limit', '2500', '--page-size', '300', ...connection()]);
    const first = JSON.parse(limited.stdout) as ListedLease[];
    expect(first).toHaveLength(2500);
    expect(new Set(first.map((r) => r.key)).size).toBe(2500);
  });

  it('stats agrees with the data: leases, metadata, owners, the top owner, etcd leases, TTL buckets', async () => {
    const result = await runCli(['stats', '--json', '--top', '3', ...connection()], cleanEnv(), 90_000);
    expect(result.code, result.stderr).toBe(0);
    const stats = JSON.parse(result.stdout) as {
      leases: number;
      withMetadata: number;
      owners: number;
      topOwners: Array<{ owner: string; leases: number }>;
      etcdLeases: number;
      ttl: { noLease: number; buckets: Array<{ fromMs: number; toMs: number | null; leases: number }> };
    };
    const [busiest, busiestCount] = [...seeded.perOwner].sort((a, b) => b[1] - a[1])[0]!;
    expect(stats).toMatchObject({ leases: LEASES, withMetadata: seeded.withMetadata, owners: seeded.perOwner.size, etcdLeases: seeded.etcdLeases });
    expect(stats.topOwners).toHaveLength(3);
    expect(stats.topOwners[0]).toEqual({ owner: busiest, leases: busiestCount });
    expect(stats.ttl.noLease).toBe(seeded.noLease);
    // Each granted TTL sits inside one bucket for the minutes this file runs.
    for (const ttlS of SEED_TTLS_S) {
      const bucket = stats.ttl.buckets.find((b) => b.fromMs <= (ttlS - 60) * 1000 && (b.toMs === null || ttlS * 1000 <= b.toMs))!;
      expect(bucket.leases, `bucket of ${ttlS}s`).toBe(seeded.perTtlSeconds.get(ttlS));
    }
  });

  it('watch --initial prints the snapshot as held events, then the changes after it', async () => {
    const provider = etcd.provider({ prefix: seeded.prefix });
    const watch = new CliProcess(['watch', '--json', '--initial', ...connection()], cleanEnv());
    try {
      await watch.until('the watch to start', (p) => p.stderr.includes('watching'), 60_000);
      expect(watch.stderr).toContain(`${LEASES} lease(s) at revision`);
      await provider.acquireLease('new\u0000thread', 'late-owner', 15_000, 'run-late');
      await watch.until('the acquire', (p) => p.stdout.includes('"late-owner"'));
      watch.signal('SIGINT');
      const result = await watch.exited;

      expect(result.code, result.stderr).toBe(0);
      const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { event: string; key: string; metadata?: string });
      const held = events.filter((e) => e.event === 'held');
      expect(held).toHaveLength(LEASES);
      expect(new Set(held.map((e) => e.key)).size).toBe(LEASES);
      expect(events.at(-1)).toMatchObject({ event: 'acquired', key: 'new\u0000thread', metadata: 'run-late' });
    } finally {
      watch.signal('SIGKILL');
      await watch.exited;
    }
  });
});
