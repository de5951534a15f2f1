/**
 * Opt-in EtcdPubSub benchmark: on a throwaway 3-member cluster (etcd from PATH or ETCD_BIN, no fault
 * proxies, no compaction needed for a run this short) it measures
 *
 *  1. etcd writes per streamed message in the Mastra thread pattern — 9 awaited lifecycle publishes around N
 *     awaited `stream-part` chunks on one `agent.thread-stream.*` topic — counted in etcd revisions (each committed
 *     write transaction adds exactly one), durable and with `streamPartsWriteBehind`, chunks back to back and paced
 *     like a model's token stream. In this process; nothing else writes to the cluster meanwhile.
 *  2. publish→deliver latency across processes: one worker process publishes, each publish awaited before the next,
 *     another worker process subscribes; latency is the subscriber's delivery time minus the time the publisher
 *     called `publish` (one machine, one clock).
 *  3. events/s with many concurrent publishers: two publisher processes, each with `--concurrency` publishes in
 *     flight, one subscriber process; rate = events delivered / (last delivery − first publish call), and how many
 *     events one etcd transaction carried (the group committer batches concurrent publishes).
 *
 * The worker processes are the cross-process tests' (test/pubsub/fixtures/pubsub-worker.ts: its own EtcdPubSub,
 * client and watch stream each). Not part of `npm run bench`, `bench:smoke` or CI.
 *
 *   npm run bench:pubsub
 *   npm run bench:pubsub -- --chunks 200 --latency-events 2000 --throughput-events 20000 --concurrency 64
 */
import { parseArgs } from 'node:util';

import type { Event } from '@mastra/core/events';
import { Etcd3 } from 'etcd3';

import { startCluster } from '../../launcher/cluster.js';
import { EtcdPubSub } from '../../src/mastra/etcd-pubsub.js';
import { streamPartsWriteBehind } from '../../src/mastra/etcd-pubsub-publish-modes.js';
import type { PubSubProcess } from '../../test/pubsub/support/pubsub-fleet.js';
import { startProcesses } from '../../test/pubsub/support/pubsub-fleet.js';
import { waitFor } from '../../launcher/wait-for.js';
import { LatencyHistogram } from '../histogram.js';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100' },
    'chunk-ms': { type: 'string', default: '20' },
    messages: { type: 'string', default: '3' },
    'latency-events': { type: 'string', default: '1000' },
    'throughput-events': { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '64' },
    payload: { type: 'string', default: '200' },
  },
});
const whole = (name: string): number => {
  const raw = values[name as keyof typeof values];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: a whole number above 0, got ${raw}`);
  return n;
};
const CHUNKS = whole('chunks');
const CHUNK_MS = whole('chunk-ms');
const MESSAGES = whole('messages');
const LATENCY_EVENTS = whole('latency-events');
const THROUGHPUT_EVENTS = whole('throughput-events');
const CONCURRENCY = whole('concurrency');
const PAYLOAD = whole('payload');

// Around the chunks the thread runtime awaits about 9 publishes per message (routing, discovery, run lifecycle);
// which ones does not matter to etcd, only that each is durable and awaited. 6 before the stream, 3 after.
const LIFECYCLE_BEFORE = 6;
const LIFECYCLE_AFTER = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The cluster's current revision: every committed write transaction adds exactly one. */
async function revision(raw: Etcd3): Promise<bigint> {
  return BigInt((await raw.kv.range({ key: Buffer.from('bench/revision-probe') })).header.revision);
}

/** etcd writes (revisions) per message, averaged over `MESSAGES` messages; `chunkMs` 0 = back to back. */
async function writesPerMessage(raw: Etcd3, publisher: EtcdPubSub, topic: string, chunkMs: number): Promise<number> {
  const before = await revision(raw);
  for (let m = 0; m < MESSAGES; m++) {
    const runId = `${topic}-run-${m}`;
    for (let k = 0; k < LIFECYCLE_BEFORE; k++) await publisher.publish(topic, { type: `lifecycle-${k}`, runId, data: {} });
    for (let c = 0; c < CHUNKS; c++) {
      await publisher.publish(topic, { type: 'stream-part', runId, data: { chunk: c, part: { type: 'text-delta', payload: { text: 'token ' } } } });
      if (chunkMs > 0) await sleep(chunkMs);
    }
    for (let k = 0; k < LIFECYCLE_AFTER; k++) await publisher.publish(topic, { type: `lifecycle-end-${k}`, runId, data: {} });
  }
  return Number((await revision(raw)) - before) / MESSAGES;
}

async function measureWrites(endpoints: string[]): Promise<void> {
  // Retention far beyond the run: no expiry deletes (which are writes too) land inside a measurement.
  const base = { hosts: endpoints, prefix: 'bench/w/lease/', eventPrefix: 'bench/w/events/', retentionMs: 600_000 };
  const durable = new EtcdPubSub(base);
  const cheap = new EtcdPubSub({ ...base, publishMode: streamPartsWriteBehind });
  const subscriber = new EtcdPubSub(base);
  const raw = new Etcd3({ hosts: endpoints });
  try {
    let delivered = 0;
    const count = (_e: Event, ack?: () => Promise<void>) => void (delivered++, ack?.());
    const cases = [
      { name: 'durable, back to back', pubsub: durable, chunkMs: 0 },
      { name: `durable, ${CHUNK_MS} ms pause after each chunk`, pubsub: durable, chunkMs: CHUNK_MS },
      { name: 'streamPartsWriteBehind, back to back', pubsub: cheap, chunkMs: 0 },
      { name: `streamPartsWriteBehind, ${CHUNK_MS} ms pause after each chunk`, pubsub: cheap, chunkMs: CHUNK_MS },
    ];
    const perMessage = LIFECYCLE_BEFORE + CHUNKS + LIFECYCLE_AFTER;
    console.log(`\netcd writes per streamed message (${LIFECYCLE_BEFORE + LIFECYCLE_AFTER} lifecycle publishes + ${CHUNKS} chunks, ${MESSAGES} messages each):`);
    for (const [i, c] of cases.entries()) {
      const topic = `agent.thread-stream.bench-${i}`;
      await subscriber.subscribe(topic, count);
      const target = delivered + MESSAGES * perMessage;
      const writes = await writesPerMessage(raw, c.pubsub, topic, c.chunkMs);
      // Write-behind resolves chunk publishes before they are in etcd, but the durable publishes after them wait
      // behind them in the topic's queue: once the last is awaited, the message is whole in etcd. Check it arrived.
      await waitFor(`${target} deliveries`, () => delivered >= target, { timeoutMs: 30_000, intervalMs: 10 });
      console.log(`  ${c.name.padEnd(44)} ${writes.toFixed(1)} writes per message (${(writes / perMessage).toFixed(3)} per publish)`);
    }
  } finally {
    raw.close();
    await Promise.allSettled([durable.close(), cheap.close(), subscriber.close()]);
  }
}

type Delivered = ReturnType<PubSubProcess['deliveries']>[number];

function latencyLine(deliveries: Delivered[]): string {
  const h = new LatencyHistogram();
  for (const d of deliveries) h.record(d.at - d.sentAt);
  return `p50 ${h.percentile(50).toFixed(1)} ms, p99 ${h.percentile(99).toFixed(1)} ms, max ${h.max.toFixed(1)} ms`;
}

async function measureAcrossProcesses(endpoints: string[]): Promise<void> {
  const env = { ETCD_ENDPOINTS: endpoints.join(','), LEASE_PREFIX: 'bench/x/lease/', EVENT_PREFIX: 'bench/x/events/' };
  const workers = await startProcesses(env, 'pub-1', 'pub-2', 'sub');
  const raw = new Etcd3({ hosts: endpoints });
  const [pub1, pub2, sub] = workers as [PubSubProcess, PubSubProcess, PubSubProcess];
  try {
    await sub.subscribe('bench.latency', { startFrom: 'latest' });
    const sequential = await pub1.publish('bench.latency', LATENCY_EVENTS, { concurrency: 1, payloadBytes: PAYLOAD });
    await waitFor('latency deliveries', () => sub.deliveries('bench.latency').length >= LATENCY_EVENTS, { timeoutMs: 60_000, intervalMs: 20 });
    console.log(`\npublish→deliver across processes, one publisher awaiting each publish (${LATENCY_EVENTS} events of ${PAYLOAD} B, ${sequential.failed} failed):`);
    console.log(`  ${latencyLine(sub.deliveries('bench.latency'))}`);

    await sub.subscribe('bench.throughput', { startFrom: 'latest' });
    // Revisions across the burst: how many events one transaction carried. An upper bound on writes per event —
    // any other write meanwhile counts too — but nothing else is due: the earlier events expire after 60 s.
    const before = await revision(raw);
    const each = Math.ceil(THROUGHPUT_EVENTS / 2);
    pub1.startPublishing('bench.throughput', each, { concurrency: CONCURRENCY });
    pub2.startPublishing('bench.throughput', each, { concurrency: CONCURRENCY });
    const done = await Promise.all([pub1.published('bench.throughput'), pub2.published('bench.throughput')]);
    const total = 2 * each;
    const writes = Number((await revision(raw)) - before);
    await waitFor('throughput deliveries', () => sub.deliveries('bench.throughput').length >= total, { timeoutMs: 120_000, intervalMs: 20 });
    const got = sub.deliveries('bench.throughput');
    const firstSent = Math.min(...got.map((d) => d.sentAt));
    const lastAt = Math.max(...got.map((d) => d.at));
    const failed = done.reduce((n, r) => n + r.failed, 0);
    console.log(`\nmany publishers: 2 processes × ${CONCURRENCY} publishes in flight, 1 subscriber process (${total} events of ${PAYLOAD} B, ${failed} failed):`);
    console.log(`  ${(got.length / ((lastAt - firstSent) / 1000)).toFixed(0)} events/s delivered; ${latencyLine(got)}`);
    console.log(`  ${writes} etcd writes for ${total} events: ${(total / writes).toFixed(1)} events per transaction`);
  } finally {
    raw.close();
    await Promise.all(workers.map((w) => w.stop()));
  }
}

async function main(): Promise<void> {
  const cluster = await startCluster({ size: 3, label: 'pubsub-bench', faultProxies: false });
  try {
    await measureWrites(cluster.endpoints());
    await measureAcrossProcesses(cluster.endpoints());
  } finally {
    await cluster.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
