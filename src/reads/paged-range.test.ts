import type { IKeyValue, IRangeRequest, IRangeResponse } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { LeaseAbortedError } from '../errors/aborted.js';
import { EtcdCompactedError } from '../errors/compacted.js';
import { EtcdSizeLimitError } from '../errors/size-limit.js';
import { countRange } from './count-range.js';
import { kvWireBytes } from './page-limit.js';
import { pagedRange, type PagedRangeOptions } from './paged-range.js';

/**
 * A multi-version key-value store answering Range as etcd does: byte-ordered keys, [key, range_end), limit with
 * `more`, reads at a past revision, compaction, and a receive limit on the response's bytes.
 */
class FakeEtcd {
  revision = 1;
  compactedBelow = 0;
  receiveLimitBytes = Number.POSITIVE_INFINITY;
  /** Responses refused for their size. */
  refused = 0;
  readonly requests: IRangeRequest[] = [];
  private readonly snapshots = new Map<number, Map<string, IKeyValue>>([[1, new Map()]]);

  put(key: string | Buffer, value = 'v'): void {
    const keyBytes = Buffer.from(key);
    const next = new Map(this.current());
    this.revision++;
    next.set(keyBytes.toString('hex'), { key: keyBytes, value: Buffer.from(value), create_revision: String(this.revision), mod_revision: String(this.revision), version: '1', lease: '0' });
    this.snapshots.set(this.revision, next);
  }

  delete(key: string): void {
    const next = new Map(this.current());
    this.revision++;
    next.delete(Buffer.from(key).toString('hex'));
    this.snapshots.set(this.revision, next);
  }

  readonly call = async (request: IRangeRequest, signal?: AbortSignal): Promise<IRangeResponse> => {
    this.requests.push(request);
    if (signal?.aborted) throw new LeaseAbortedError('range', signal.reason);
    const at = request.revision === undefined || Number(request.revision) <= 0 ? this.revision : Number(request.revision);
    if (at < this.compactedBelow) throw new EtcdCompactedError('range', undefined, new Error('compacted'));
    const inRange = [...this.snapshots.get(at)!.values()]
      .filter((kv) => Buffer.compare(kv.key, request.key!) >= 0 && Buffer.compare(kv.key, request.range_end!) < 0)
      .sort((a, b) => Buffer.compare(a.key, b.key));
    const limit = Number(request.limit ?? 0);
    const page = request.count_only ? [] : limit > 0 ? inRange.slice(0, limit) : inRange;
    const kvs = request.keys_only ? page.map((kv) => ({ ...kv, value: Buffer.alloc(0) })) : page;
    const bytes = kvs.reduce((n, kv) => n + kvWireBytes(kv), 0);
    if (bytes > this.receiveLimitBytes && ++this.refused) throw new EtcdSizeLimitError('range', 'grpc-message', bytes, this.receiveLimitBytes, new Error('too large'));
    return { header: { revision: String(this.revision) } as IRangeResponse['header'], kvs, more: limit > 0 && inRange.length > limit, count: String(inRange.length) };
  };

  private current(): Map<string, IKeyValue> {
    return this.snapshots.get(this.revision)!;
  }
}

async function readAll(etcd: FakeEtcd, options: PagedRangeOptions, between?: (page: number) => void): Promise<{ keys: string[]; pages: number[]; revisions: string[] }> {
  const keys: string[] = [];
  const pages: number[] = [];
  const revisions: string[] = [];
  for await (const page of pagedRange(etcd.call, options)) {
    keys.push(...page.kvs.map((kv) => kv.key.toString()));
    pages.push(page.kvs.length);
    revisions.push(page.revision);
    between?.(pages.length);
  }
  return { keys, pages, revisions };
}

function filled(n: number, prefix = 'p/'): FakeEtcd {
  const etcd = new FakeEtcd();
  for (let i = 0; i < n; i++) etcd.put(`${prefix}${String(i).padStart(5, '0')}`);
  return etcd;
}

describe('pagedRange', () => {
  it('returns every key under the prefix exactly once, in key order, in pages of at most maxKeys', async () => {
    const etcd = filled(2345);
    etcd.put('p0-outside');
    etcd.put('o/outside');
    const { keys, pages } = await readAll(etcd, { prefix: Buffer.from('p/'), maxKeys: 300 });
    expect(keys).toEqual(Array.from({ length: 2345 }, (_, i) => `p/${String(i).padStart(5, '0')}`));
    expect(Math.max(...pages)).toBeLessThanOrEqual(300);
    expect(pages.length).toBeGreaterThan(2345 / 300);
  });

  it('reads every page at the first page\'s revision: writes and deletes made meanwhile are not seen', async () => {
    const etcd = filled(1000);
    const startRevision = String(etcd.revision);
    const { keys, revisions } = await readAll(etcd, { prefix: Buffer.from('p/'), maxKeys: 100 }, (page) => {
      etcd.delete(`p/${String(page * 100 + 5).padStart(5, '0')}`); // a key still ahead of the reader
      etcd.put(`p/${String(page).padStart(5, '0')}x`); // a new key ahead of it
    });
    expect(keys).toHaveLength(1000);
    expect(new Set(revisions)).toEqual(new Set([startRevision]));
    expect(etcd.requests.slice(1).every((r) => String(r.revision) === startRevision)).toBe(true);
  });

  it('reads at a given revision from the first page on', async () => {
    const etcd = filled(10);
    const then = String(etcd.revision);
    etcd.put('p/new');
    const { keys, revisions } = await readAll(etcd, { prefix: Buffer.from('p/'), revision: then });
    expect(keys).not.toContain('p/new');
    expect(revisions).toEqual([then]);
  });

  it('keeps page bytes near the target: small first page, then as many keys as fit', async () => {
    const etcd = new FakeEtcd();
    for (let i = 0; i < 400; i++) etcd.put(`p/${String(i).padStart(4, '0')}`, 'x'.repeat(10_000));
    const { keys, pages } = await readAll(etcd, { prefix: Buffer.from('p/'), targetBytes: 100_000 });
    expect(keys).toHaveLength(400);
    expect(pages[0]).toBe(100);
    expect(Math.max(...pages.slice(1))).toBeLessThanOrEqual(10);
  });

  it('asks again with half the keys when a page is over the receive limit, and loses no key doing so', async () => {
    const etcd = new FakeEtcd();
    for (let i = 0; i < 50; i++) etcd.put(`p/${String(i).padStart(3, '0')}`, 'x'.repeat(i === 20 ? 35_000 : 100));
    etcd.receiveLimitBytes = 40_000;
    const { keys } = await readAll(etcd, { prefix: Buffer.from('p/') });
    expect(keys).toEqual(Array.from({ length: 50 }, (_, i) => `p/${String(i).padStart(3, '0')}`));
    expect(etcd.requests.map((r) => Number(r.limit)).slice(0, 3)).toEqual([100, 50, 25]);
  });

  it('with the largest entry known, a prefix of large values is read without one oversize page', async () => {
    const limit = 4 * 1024 * 1024;
    const fill = () => {
      const etcd = new FakeEtcd();
      for (let i = 0; i < 16; i++) etcd.put(`p/${String(i).padStart(2, '0')}`, 'x'.repeat(400 * 1024));
      etcd.receiveLimitBytes = limit;
      return etcd;
    };
    const sized = fill();
    const { keys } = await readAll(sized, { prefix: Buffer.from('p/'), maxEntryBytes: 1024 * 1024, receiveLimitBytes: limit });
    expect(keys).toHaveLength(16);
    expect(sized.refused).toBe(0);
    // Blind, the first page of 100 keys (6.5 MB) and its halves down to 12 keys are refused before one fits.
    const blind = fill();
    expect((await readAll(blind, { prefix: Buffer.from('p/') })).keys).toHaveLength(16);
    expect(blind.refused).toBe(4);
  });

  it('with the largest entry known, an oversize page is asked for again at a count that fits for sure', async () => {
    const etcd = new FakeEtcd();
    // Small values first, so the pages grow, then values as large as allowed.
    for (let i = 0; i < 40; i++) etcd.put(`p/${String(i).padStart(2, '0')}`, 'x'.repeat(i < 3 ? 10 : 1024 * 1024 - 10));
    etcd.receiveLimitBytes = 4 * 1024 * 1024;
    const { keys } = await readAll(etcd, { prefix: Buffer.from('p/'), maxEntryBytes: 1024 * 1024, receiveLimitBytes: 4 * 1024 * 1024 });
    expect(keys).toHaveLength(40);
    expect(etcd.refused).toBe(1);
  });

  it('fails with EtcdSizeLimitError when a single key-value is over the receive limit', async () => {
    const etcd = new FakeEtcd();
    etcd.put('p/a');
    etcd.put('p/huge', 'x'.repeat(50_000));
    etcd.receiveLimitBytes = 40_000;
    await expect(readAll(etcd, { prefix: Buffer.from('p/') })).rejects.toBeInstanceOf(EtcdSizeLimitError);
    expect(etcd.requests.at(-1)!.limit).toBe(1);
  });

  it('fails with EtcdCompactedError naming the revision when compaction overtakes the snapshot', async () => {
    const etcd = filled(300);
    const pinned = String(etcd.revision);
    const reading = readAll(etcd, { prefix: Buffer.from('p/'), maxKeys: 100 }, () => {
      etcd.put('p/zz');
      etcd.compactedBelow = etcd.revision;
    });
    await expect(reading).rejects.toMatchObject({ code: 'ELEASE_COMPACTED', revision: pinned });
  });

  it('an aborted signal ends the read before the next page is asked for', async () => {
    const etcd = filled(500);
    const controller = new AbortController();
    const reading = readAll(etcd, { prefix: Buffer.from('p/'), maxKeys: 100, signal: controller.signal }, () => controller.abort());
    await expect(reading).rejects.toBeInstanceOf(LeaseAbortedError);
    expect(etcd.requests).toHaveLength(1);
  });

  it('a consumer that stops early sends no further request', async () => {
    const etcd = filled(500);
    for await (const page of pagedRange(etcd.call, { prefix: Buffer.from('p/'), maxKeys: 100 })) {
      expect(page.kvs).toHaveLength(100);
      break;
    }
    expect(etcd.requests).toHaveLength(1);
  });

  it('resumes after a given key', async () => {
    const etcd = filled(20);
    const { keys } = await readAll(etcd, { prefix: Buffer.from('p/'), after: Buffer.from('p/00014') });
    expect(keys).toEqual(['p/00015', 'p/00016', 'p/00017', 'p/00018', 'p/00019']);
  });

  it('keys with NUL and 0xFF bytes are paged through like any other', async () => {
    const etcd = new FakeEtcd();
    const keys = [Buffer.from('p/a\u0000b'), Buffer.from('p/a'), Buffer.from([0x70, 0x2f, 0xff]), Buffer.from([0x70, 0x2f, 0xff, 0x00])];
    for (const key of keys) etcd.put(key);
    const read: Buffer[] = [];
    for await (const page of pagedRange(etcd.call, { prefix: Buffer.from('p/'), maxKeys: 1 })) read.push(...page.kvs.map((kv) => kv.key));
    expect(read.map((k) => k.toString('hex'))).toEqual([...keys].sort(Buffer.compare).map((k) => k.toString('hex')));
  });

  it('an empty prefix yields no page', async () => {
    const { pages } = await readAll(filled(3, 'q/'), { prefix: Buffer.from('p/') });
    expect(pages).toEqual([]);
  });

  it('refuses a page size below one key', async () => {
    await expect(() => pagedRange(new FakeEtcd().call, { prefix: Buffer.from('p/'), maxKeys: 0 }).next()).rejects.toMatchObject({ code: 'ELEASE_INVALID_ARGUMENT' });
  });
});

describe('countRange', () => {
  it('counts the keys under the prefix in one request, with the revision the count holds at', async () => {
    const etcd = filled(1234);
    etcd.put('q/other');
    expect(await countRange(etcd.call, { prefix: Buffer.from('p/') })).toEqual({ count: 1234, revision: String(etcd.revision) });
    expect(etcd.requests).toHaveLength(1);
    expect(etcd.requests[0]!.count_only).toBe(true);
  });
});
