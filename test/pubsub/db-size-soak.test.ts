/**
 * Soak: events are short-lived keys, but etcd keeps every revision until it compacts. With etcd's periodic
 * auto-compaction on, a steady stream of events must keep the db size flat; without it the db grows and EtcdPubSub
 * warns that etcd does not compact.
 *
 * CI runs 2 minutes of 4 streaming threads (60 events/s each, ~400 B). ETCD_PUBSUB_SOAK_MS=300000 runs the long
 * version (5 minutes), with the same assertion over thirds of the run.
 */
import { describe, expect, it } from 'vitest';

import { EtcdCore } from '../../src/core/etcd-core.js';
import { CompactionCheck } from '../../src/pubsub/retention/compaction-check.js';
import { collector, usePubSubCluster } from './support/pubsub-fixture.js';

const SOAK_MS = Number(process.env.ETCD_PUBSUB_SOAK_MS ?? 120_000);
const SAMPLE_MS = 5000;
const THREADS = 4;
const CHUNKS_PER_SECOND = 60;
const RETENTION_MS = 2000;
const COMPACTION = ['--auto-compaction-mode=periodic', '--auto-compaction-retention=10s'];

interface Sample {
  atMs: number;
  dbSize: number;
  keys: number;
  published: number;
}

/** Streams like `THREADS` agent threads for `durationMs`, sampling etcd's db size and live event keys. */
async function stream(etcd: ReturnType<typeof usePubSubCluster>, durationMs: number): Promise<{ samples: Sample[]; delivered: number; published: number }> {
  const space = etcd.namespace();
  const publisher = etcd.pubsub(space, { retentionMs: RETENTION_MS, retentionBucketMs: 1000 });
  const subscriber = etcd.pubsub(space, { retentionMs: RETENTION_MS });
  const got = collector();
  for (let t = 0; t < THREADS; t++) await subscriber.subscribe(`agent.thread-stream.soak-${t}`, got.cb, { startFrom: 'latest' });
  const raw = etcd.rawClient();
  const start = performance.now();
  let published = 0;
  let running = true;
  const part = { type: 'text-delta', payload: { text: 'x'.repeat(300) } };
  const threads = Array.from({ length: THREADS }, async (_, t) => {
    for (let chunk = 0; running; chunk++) {
      // Paced like a model emitting 60 chunks/s, each publish awaited as Mastra's thread runtime does.
      const due = start + (chunk * 1000) / CHUNKS_PER_SECOND;
      if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
      await publisher.publish(`agent.thread-stream.soak-${t}`, { type: 'stream-part', runId: `run-${t}`, data: { chunk, part } });
      published++;
    }
  });
  const samples: Sample[] = [];
  while (performance.now() - start < durationMs) {
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
    const status = await raw.maintenance.status();
    const keys = await raw.kv.range({ key: Buffer.from(space.eventPrefix), range_end: Buffer.from(`${space.eventPrefix.slice(0, -1)}0`), count_only: true });
    samples.push({ atMs: Math.round(performance.now() - start), dbSize: Number(status.dbSize), keys: Number(keys.count), published });
  }
  running = false;
  await Promise.all(threads);
  await got.until(published, 30_000);
  console.log(`soak samples (ms, db bytes, live event keys, published):\n${samples.map((s) => `${s.atMs}\t${s.dbSize}\t${s.keys}\t${s.published}`).join('\n')}`);
  return { samples, delivered: got.events.length, published };
}

const max = (xs: number[]) => Math.max(...xs);

describe('with periodic auto-compaction', () => {
  const etcd = usePubSubCluster({ size: 1, extraArgs: COMPACTION });

  it(
    `a ${SOAK_MS / 1000} s stream keeps the db size flat and the live events bounded`,
    async () => {
      const { samples, delivered, published } = await stream(etcd, SOAK_MS);
      const third = SOAK_MS / 3;
      const middle = samples.filter((s) => s.atMs > third && s.atMs <= 2 * third).map((s) => s.dbSize);
      const last = samples.filter((s) => s.atMs > 2 * third).map((s) => s.dbSize);
      // Linear growth would make the last third's peak 1.5 × the middle third's.
      expect(max(last)).toBeLessThanOrEqual(1.15 * max(middle));
      // Live events: the publish rate times their life (retention + bucket + whole-second rounding + expiry sweep).
      const rate = THREADS * CHUNKS_PER_SECOND;
      for (const s of samples) expect(s.keys).toBeLessThan(rate * ((RETENTION_MS + 1000 + 1000 + 500) / 1000) * 1.5);
      expect(published).toBeGreaterThan(rate * (SOAK_MS / 1000) * 0.8);
      expect(delivered).toBe(published);
    },
    SOAK_MS + 60_000,
  );

  it('the compaction check stays quiet while etcd compacts', async () => {
    const core = new EtcdCore({ hosts: etcd.cluster.endpoints() });
    const warnings: string[] = [];
    const check = new CompactionCheck(core, Buffer.from('probe'), { warn: (m) => warnings.push(m) }, 100);
    try {
      await check.run();
      const raw = etcd.rawClient();
      for (let i = 0; i < 150; i++) await raw.put('churn').value(String(i));
      await raw.kv.compact({ revision: (await raw.kv.range({ key: Buffer.from('x') })).header.revision });
      await check.run();
      expect(check.compactionMissing).toBe(false);
      expect(warnings).toEqual([]);
    } finally {
      core.close(new Error('done'));
    }
  });
});

describe('without compaction', () => {
  const etcd = usePubSubCluster({ size: 1 });

  it('the db grows with the same stream, and the compaction check warns', async () => {
    const core = new EtcdCore({ hosts: etcd.cluster.endpoints() });
    const warnings: string[] = [];
    const check = new CompactionCheck(core, Buffer.from('probe'), { warn: (m) => warnings.push(m) }, 1000);
    try {
      await check.run();
      const { samples } = await stream(etcd, 30_000);
      expect(samples.at(-1)!.dbSize).toBeGreaterThan(1.3 * samples[0]!.dbSize);
      await check.run();
      expect(check.compactionMissing).toBe(true);
      expect(warnings.join('\n')).toMatch(/--auto-compaction-mode=periodic/);
    } finally {
      core.close(new Error('done'));
    }
  }, 90_000);
});
