import type { Etcd3 } from 'etcd3';
import { afterAll, describe, expect, it } from 'vitest';
import { EtcdCompactedError } from '../../src/errors/compacted.js';
import { EtcdSizeLimitError } from '../../src/errors/size-limit.js';
import { pagedRange, type PagedRangeOptions } from '../../src/reads/paged-range.js';
import { etcdRangeCall, type RangeCall } from '../../src/reads/range-call.js';
import { CallRunner } from '../../src/transport/call-runner.js';
import { createEtcdClient } from '../../src/transport/etcd-client.js';
import { plainClient } from '../harness/plain-client.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';

// One member that accepts values over gRPC's 4 MiB receive limit, so responses can really pass it.
const etcd = useEtcdCluster({ size: 1, extraArgs: ['--max-request-bytes=6291456'] });

const clients: Etcd3[] = [];
afterAll(() => clients.forEach((c) => c.close()));

/**
 * Range calls as the CLI and EtcdPubSub make them: the package's client (`'package'`, which accepts what etcd sends),
 * retry runner and error classification — or, `'grpc-default'`, a client a caller may pass in, at gRPC's default
 * 4 MiB receive limit (without etcd3's own retries and breakers, which would resend a refused page).
 */
function rangeCall(client: 'package' | 'grpc-default' = 'package'): RangeCall {
  const hosts = etcd.cluster.endpoints();
  const made = client === 'package' ? createEtcdClient({}, hosts, 1000) : plainClient(hosts);
  clients.push(made);
  const runner = new CallRunner(1000, 'test/');
  return etcdRangeCall(made, runner, 'range', (signal) => ({ deadlineMs: 10_000, signals: signal === undefined ? [] : [signal] }));
}

async function putMany(prefix: string, keys: string[], value: (i: number) => string | Buffer = () => 'v'): Promise<void> {
  const raw = etcd.rawClient();
  for (let i = 0; i < keys.length; i += 100) {
    await raw.kv.txn({ success: keys.slice(i, i + 100).map((k, j) => ({ request_put: { key: Buffer.from(prefix + k), value: Buffer.from(value(i + j)) } })) });
  }
}

/** The keys a paged read returns, prefix stripped; `between` runs after each page. */
async function keysOf(call: RangeCall, options: PagedRangeOptions, between?: () => Promise<void>): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of pagedRange(call, options)) {
    keys.push(...page.kvs.map((kv) => kv.key.subarray(options.prefix.length).toString()));
    await between?.();
  }
  return keys;
}

describe('pagedRange on etcd', () => {
  it('is one snapshot: keys written or deleted while the pages are read change nothing in the listing', async () => {
    const prefix = etcd.uniquePrefix();
    const initial = Array.from({ length: 3000 }, (_, i) => `t-${String(i).padStart(5, '0')}\u0000thread`);
    await putMany(prefix, initial);
    const raw = etcd.rawClient();
    let page = 0;
    const listed = await keysOf(rangeCall(), { prefix: Buffer.from(prefix), maxKeys: 250 }, async () => {
      page++;
      const ahead = initial[page * 250 + 10];
      if (ahead !== undefined) await raw.delete().key(`${prefix}${ahead}`).exec(); // a key the reader has not reached
      await raw.put(`${prefix}t-${String(page * 250 + 20).padStart(5, '0')}-new`).value('v').exec();
    });
    expect(page).toBeGreaterThanOrEqual(12);
    expect(listed).toEqual(initial);
  });

  it("a page over a client's 4 MiB receive limit is read again in halves; every key arrives once", async () => {
    const prefix = etcd.uniquePrefix();
    const keys = Array.from({ length: 12 }, (_, i) => `big-${String(i).padStart(2, '0')}`);
    // One put each: a transaction of several 1 MiB values would pass the member's request limit.
    for (const key of keys) await putMany(prefix, [key], () => Buffer.alloc(1024 * 1024, 1));
    // 12 MiB in the first page of up to 100 keys: refused by the client, then 50, 25, 12, 6 … until it fits.
    expect(await keysOf(rangeCall('grpc-default'), { prefix: Buffer.from(prefix) })).toEqual(keys);
    // The package's client takes the 12 MiB page whole.
    expect(await keysOf(rangeCall('package'), { prefix: Buffer.from(prefix) })).toEqual(keys);
  });

  it("one value over a client's receive limit fails at once with EtcdSizeLimitError naming its size and the limit; the package's client reads it", async () => {
    const prefix = etcd.uniquePrefix();
    await putMany(prefix, ['a', 'huge', 'z'], (i) => (i === 1 ? Buffer.alloc(5 * 1024 * 1024, 1) : 'v'));
    expect(await keysOf(rangeCall('package'), { prefix: Buffer.from(prefix) })).toEqual(['a', 'huge', 'z']);
    const started = performance.now();
    const error = await keysOf(rangeCall('grpc-default'), { prefix: Buffer.from(prefix) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EtcdSizeLimitError);
    expect(error).toMatchObject({ code: 'ELEASE_TOO_LARGE', limitBytes: 4 * 1024 * 1024 });
    expect((error as EtcdSizeLimitError).sizeBytes).toBeGreaterThan(5 * 1024 * 1024);
    // Not retried until the 10 s deadline: a handful of halvings, each one round trip.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('fails with EtcdCompactedError when compaction overtakes the pinned revision between pages', async () => {
    const prefix = etcd.uniquePrefix();
    await putMany(prefix, Array.from({ length: 500 }, (_, i) => `k${String(i).padStart(4, '0')}`));
    const raw = etcd.rawClient();
    let pinned: string | undefined;
    const reading = (async () => {
      for await (const page of pagedRange(rangeCall(), { prefix: Buffer.from(prefix), maxKeys: 100 })) {
        pinned ??= page.revision;
        const put = await raw.put(`${prefix}zz`).value('v').exec();
        await raw.kv.compact({ revision: put.header.revision, physical: true });
      }
    })();
    const error = await reading.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EtcdCompactedError);
    expect(error).toMatchObject({ revision: pinned });
  });
});
