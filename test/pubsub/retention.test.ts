/**
 * What EtcdPubSub leaves in etcd and what it costs there, on a real (one-member) cluster: events expire on their
 * own through shared retention leases, one awaited stream chunk is one etcd write (write-behind shares writes), and
 * the compaction check warns exactly when etcd keeps its whole history.
 *
 * The costs are counted in etcd revisions, which every committed write transaction adds exactly one of, so the
 * assertions do not depend on the machine's speed.
 */
import { describe, expect, it } from 'vitest';

import { EtcdCore } from '../../src/core/etcd-core.js';
import { streamPartsWriteBehind } from '../../src/mastra/etcd-pubsub-publish-modes.js';
import { CompactionCheck } from '../../src/pubsub/retention/compaction-check.js';
import { waitFor } from '../support/wait.js';
import { collector, usePubSubCluster } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster({ size: 1 });

const prefixEnd = (p: string) => Buffer.from(p.slice(0, -1) + String.fromCharCode(p.charCodeAt(p.length - 1) + 1));

let raw: ReturnType<typeof etcd.rawClient> | undefined;

async function revision(): Promise<bigint> {
  raw ??= etcd.rawClient();
  return BigInt((await raw.kv.range({ key: Buffer.from('x') })).header.revision);
}

async function keysUnder(prefix: string): Promise<number> {
  raw ??= etcd.rawClient();
  const res = await raw.kv.range({ key: Buffer.from(prefix), range_end: prefixEnd(prefix), count_only: true });
  return Number(res.count);
}

const part = (chunk: number) => ({ type: 'stream-part', runId: 'run-1', data: { chunk, part: { type: 'text-delta', payload: { text: 'token ' } } } });

describe('retention', () => {
  it('events expire on their own after retentionMs (plus at most a bucket and the lease rounding), with no delete from anyone', async () => {
    const space = etcd.namespace();
    const pubsub = etcd.pubsub(space, { retentionMs: 2000, retentionBucketMs: 1000 });
    for (let n = 0; n < 20; n++) await pubsub.publish('short-lived', { type: 't', runId: 'r', data: { n } });
    expect(await keysUnder(`${space.eventPrefix}t/short-lived/e/`)).toBe(20);
    // 2 s retention + 1 s bucket + etcd's whole-second rounding and expiry sweep; the bound only ends a failed wait.
    await waitFor('the events to expire', async () => (await keysUnder(`${space.eventPrefix}t/short-lived/e/`)) === 0, { timeoutMs: 15_000, intervalMs: 200 });
    expect(await pubsub.getHistory('short-lived')).toEqual([]);
  });
});

describe('cost in etcd writes', () => {
  it('an awaited stream of chunks costs one etcd write per chunk; write-behind shares one write among many chunks', async () => {
    const space = etcd.namespace();
    const durable = etcd.pubsub(space);
    const cheap = etcd.pubsub(space, { publishMode: streamPartsWriteBehind, writeBehindFlushMs: 25 });
    const seenDurable = collector();
    const seenCheap = collector();
    await durable.subscribe('agent.thread-stream.durable', seenDurable.cb);
    await durable.subscribe('agent.thread-stream.cheap', seenCheap.cb);
    const CHUNKS = 60;

    // As Mastra's thread runtime does: one publish per chunk, each awaited before the next.
    const beforeDurable = await revision();
    for (let chunk = 0; chunk < CHUNKS; chunk++) await durable.publish('agent.thread-stream.durable', part(chunk));
    const durableWrites = Number((await revision()) - beforeDurable);

    const beforeCheap = await revision();
    for (let chunk = 0; chunk < CHUNKS; chunk++) await cheap.publish('agent.thread-stream.cheap', part(chunk));
    await cheap.publish('agent.thread-stream.cheap', { type: 'run-completed', runId: 'run-1', data: {} });
    const cheapWrites = Number((await revision()) - beforeCheap);

    await seenDurable.until(CHUNKS);
    await seenCheap.until(CHUNKS + 1);
    console.log(`etcd writes for ${CHUNKS} awaited chunks: durable ${durableWrites}; write-behind (25 ms), with the durable run-completed after them, ${cheapWrites}`);
    expect(durableWrites).toBe(CHUNKS);
    // The durable run-completed waits behind the buffered chunks in the same queue, so it is one more write at most.
    expect(cheapWrites).toBeLessThan(CHUNKS / 2);
    // Order within the topic is kept whatever the mode.
    const chunks = (events: typeof seenCheap.events) => events.filter((e) => e.type === 'stream-part').map((e) => (e.data as { chunk: number }).chunk);
    expect(chunks(seenDurable.events)).toEqual([...Array(CHUNKS).keys()]);
    expect(chunks(seenCheap.events)).toEqual([...Array(CHUNKS).keys()]);
    expect(seenCheap.events.at(-1)!.type).toBe('run-completed');
  });
});

describe('the compaction check', () => {
  it('warns when etcd kept more revisions than the threshold uncompacted, and stays quiet once etcd compacts', async () => {
    const core = new EtcdCore({ hosts: etcd.cluster.endpoints() });
    const warnings: string[] = [];
    const check = new CompactionCheck(core, Buffer.from('probe'), { warn: (m) => warnings.push(m) }, 100);
    raw ??= etcd.rawClient();
    try {
      await check.run();
      for (let i = 0; i < 150; i++) await raw!.put('churn').value(String(i));
      await check.run();
      expect(check.compactionMissing).toBe(true);
      expect(warnings.join('\n')).toMatch(/--auto-compaction-mode=periodic/);

      warnings.length = 0;
      for (let i = 0; i < 150; i++) await raw!.put('churn').value(String(i));
      await raw!.kv.compact({ revision: (await revision()).toString(), physical: true });
      await check.run();
      expect(check.compactionMissing).toBe(false);
      expect(warnings).toEqual([]);
    } finally {
      core.close(new Error('test over'));
    }
  });
});
