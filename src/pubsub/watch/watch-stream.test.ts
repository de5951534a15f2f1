import { EventEmitter } from 'node:events';
import { GRPCDeadlineExceededError, type Etcd3, type IEvent, type IWatchRequest } from 'etcd3';
import { describe, expect, it, vi } from 'vitest';
import { EtcdSizeLimitError } from '../../errors/size-limit.js';
import { WatchStream, type WatchHandler } from './watch-stream.js';

/** The client side of one gRPC watch stream: what was written to it, and a way to answer. */
class FakeStream extends EventEmitter {
  readonly written: IWatchRequest[] = [];
  write(request: IWatchRequest): boolean {
    this.written.push(request);
    return true;
  }
  end(): void {}
  cancel(): void {}
  creates() {
    return this.written.flatMap((r) => (r.create_request ? [r.create_request] : []));
  }
}

const spec = { prefix: Buffer.from('t/'), deletes: false };

/** A stream on a fake client; `extra` overrides its options (the tuning seam, hooks). */
function setUp(extra: Partial<ConstructorParameters<typeof WatchStream>[1]> = {}) {
  const streams: FakeStream[] = [];
  const client = {
    watchClient: {
      watch: async () => {
        const stream = new FakeStream();
        streams.push(stream);
        return stream;
      },
    },
  } as unknown as Etcd3;
  const oversize: EtcdSizeLimitError[] = [];
  const resumes: string[] = [];
  const stream = new WatchStream(client, {
    readRevision: async () => '1',
    checkMs: 60_000,
    // Silence is judged only where a case asks for it: these fakes answer nothing they are not told to.
    liveness: { quietMs: 60_000, answerMs: 60_000 },
    logger: {},
    onResume: (reason) => resumes.push(reason),
    onOversize: (error) => oversize.push(error),
    ...extra,
  });
  const nth = (i: number) => vi.waitFor(() => streams[i] ?? Promise.reject(new Error(`no stream ${i} yet`)));
  /** The `creates`-th create request on stream `i`, once written. */
  const created = async (i: number, creates: number) => {
    const s = await nth(i);
    await vi.waitFor(() => expect(s.creates()).toHaveLength(creates));
    return s;
  };
  /** Watch 1 on `spec`, confirmed by etcd at revision 10 on the first stream. */
  const live = async (handler: WatchHandler) => {
    const watching = stream.watch(spec, handler, new AbortController().signal);
    const first = await created(0, 1);
    first.emit('data', createdAt(1, 10));
    expect((await watching).createdAt).toBe('10');
    return first;
  };
  return { stream, created, live, oversize, resumes };
}

function recorder() {
  const batches: string[][] = [];
  const canceled: Array<[string | undefined, string]> = [];
  const handler: WatchHandler = {
    onEvents: (events: IEvent[]) => batches.push(events.map((e) => `${e.kv.mod_revision}:${e.kv.key.toString()}`)),
    onCanceled: (compactRevision, reason) => canceled.push([compactRevision, reason]),
  };
  return { handler, batches, canceled };
}

const put = (rev: number, key: string) => ({ type: 'Put', kv: { key: Buffer.from(key), value: Buffer.alloc(0), mod_revision: String(rev) } });
const header = (revision: number) => ({ revision: String(revision) });
const createdAt = (id: number, revision: number) => ({ watch_id: String(id), created: true, header: header(revision), events: [] });
const events = (id: number, fragment: boolean, ...evs: ReturnType<typeof put>[]) => ({ watch_id: String(id), header: header(20), fragment, events: evs });

/** What gRPC emits for a response over the receive limit (grpc-js: status 8, "Received message larger than max"). */
function tooLarge(size: number, limit: number): Error {
  const details = `Received message larger than max (${size} vs ${limit})`;
  return Object.assign(new Error(`8 RESOURCE_EXHAUSTED: ${details}`), { code: 8, details });
}

describe('watch stream', () => {
  it('asks etcd for fragmented responses and delivers only whole revisions of them', async () => {
    const { stream, live } = setUp();
    const { handler, batches } = recorder();
    const first = await live(handler);
    expect(first.creates()[0]).toMatchObject({ fragment: true, watch_id: 1 });
    first.emit('data', events(1, true, put(11, 'a'), put(12, 'b1')));
    first.emit('data', events(1, true, put(12, 'b2')));
    first.emit('data', events(1, false, put(12, 'b3'), put(13, 'c')));
    expect(batches).toEqual([['11:a'], ['12:b1', '12:b2', '12:b3', '13:c']]);
    stream.close();
  });

  it('a stream lost between fragments resumes the watch at the revision it had only in part', async () => {
    const { stream, live, created } = setUp();
    const { handler, batches } = recorder();
    const first = await live(handler);
    first.emit('data', events(1, true, put(11, 'a'), put(12, 'b1')));
    first.emit('error', Object.assign(new Error('14 UNAVAILABLE: read ECONNRESET'), { code: 14 }));
    const second = await created(1, 1);
    // Revision 12 was seen in part: resumed from 12, not 13. Without the fragment flag it would be delivered, and lost.
    expect(second.creates()[0]).toMatchObject({ watch_id: 1, start_revision: '12', fragment: true });
    second.emit('data', createdAt(1, 20));
    second.emit('data', events(1, false, put(12, 'b1'), put(12, 'b2')));
    expect(batches).toEqual([['11:a'], ['12:b1', '12:b2']]);
    stream.close();
  });

  it('a response over the receive limit hands the resuming watches back to their owners, once, with a typed error', async () => {
    const { stream, live, created, oversize, resumes } = setUp();
    const resumed = recorder();
    const creating = recorder();
    const first = await live(resumed.handler);
    // A second watch whose `created` has not come yet: it asks for nothing old and stays on the stream.
    void stream.watch({ prefix: Buffer.from('u/'), deletes: false }, creating.handler, new AbortController().signal);
    await created(0, 2);

    first.emit('error', tooLarge(6_558_131, 4_194_304));
    expect(oversize).toHaveLength(1);
    expect(oversize[0]).toBeInstanceOf(EtcdSizeLimitError);
    expect(oversize[0]).toMatchObject({ code: 'ELEASE_TOO_LARGE', operation: 'watch', limit: 'grpc-message', sizeBytes: 6_558_131, limitBytes: 4_194_304 });
    expect(resumes).toContain('oversize');
    expect(resumed.canceled).toEqual([[undefined, oversize[0]!.message]]);
    expect(creating.canceled).toEqual([]);

    const second = await created(1, 1);
    expect(second.creates()[0]).toMatchObject({ watch_id: 2 });
    expect(second.creates()[0]!.start_revision).toBeUndefined();
    stream.close();
  });

  it('with the re-read turned off (the test seam), the same watch is resumed from the same revision again', async () => {
    const { stream, live, created, oversize } = setUp({ resyncOversize: false });
    const { handler, canceled } = recorder();
    const first = await live(handler);
    first.emit('error', tooLarge(6_558_131, 4_194_304));
    expect((await created(1, 1)).creates()[0]).toMatchObject({ watch_id: 1, start_revision: '11' });
    expect(canceled).toEqual([]);
    expect(oversize).toHaveLength(1);
    stream.close();
  });

  it("etcd's own RESOURCE_EXHAUSTED errors are no frame limit: the stream resumes as after any failure", async () => {
    const { stream, live, created, oversize } = setUp();
    const { handler, canceled } = recorder();
    const first = await live(handler);
    const details = 'etcdserver: too many requests';
    first.emit('error', Object.assign(new Error(`8 RESOURCE_EXHAUSTED: ${details}`), { code: 8, details }));
    expect((await created(1, 1)).creates()[0]).toMatchObject({ watch_id: 1, start_revision: '11' });
    expect(canceled).toEqual([]);
    expect(oversize).toEqual([]);
    stream.close();
  });

  it('a watch from a given revision asks for it, keeps it as its boundary, and resumes from what it delivered last', async () => {
    const { stream, created } = setUp();
    const { handler, batches } = recorder();
    const watching = stream.watch({ ...spec, deletes: true, from: 7n, previous: true }, handler, new AbortController().signal);
    const first = await created(0, 1);
    expect(first.creates()[0]).toMatchObject({ watch_id: 1, start_revision: '7', prev_kv: true });
    expect(first.creates()[0]!.filters).toBeUndefined();
    first.emit('data', createdAt(1, 10));
    await watching;
    first.emit('data', events(1, false, put(7, 'a'), put(9, 'b')));
    expect(batches).toEqual([['7:a', '9:b']]);
    first.emit('error', Object.assign(new Error('14 UNAVAILABLE: read ECONNRESET'), { code: 14 }));
    expect((await created(1, 1)).creates()[0]).toMatchObject({ watch_id: 1, start_revision: '10', prev_kv: true });
    stream.close();
  });

  it('reports each stream it opens, and what ended the one before', async () => {
    const connected: number[] = [];
    const ended: unknown[] = [];
    const { stream, live, created } = setUp({ onConnected: () => connected.push(1), onResume: (_reason, error) => ended.push(error) });
    const first = await live(recorder().handler);
    expect(connected).toHaveLength(1);
    const error = Object.assign(new Error('14 UNAVAILABLE: read ECONNRESET'), { code: 14 });
    first.emit('error', error);
    await created(1, 1);
    expect(connected).toHaveLength(2);
    expect(ended).toEqual([error]);
    stream.close();
  });

  it('without fragments asked for (the test seam), the create request says so', async () => {
    const { stream, created } = setUp({ fragment: false });
    void stream.watch(spec, recorder().handler, new AbortController().signal);
    expect((await created(0, 1)).creates()[0]).toMatchObject({ fragment: false });
    stream.close();
  });

  it('a quiet stream is asked for its progress; one that answers stays, one that then says nothing is failed against its member and replaced', async () => {
    const { stream, live, created, resumes } = setUp({ liveness: { quietMs: 30, answerMs: 60 } });
    const first = await live(recorder().handler);
    // What etcd3 listens on: an error raised while the stream is writable counts against its member.
    const raised: unknown[] = [];
    first.on('error', (error) => raised.push(error));
    const asked = () => first.written.filter((r) => r.progress_request !== undefined).length;
    await vi.waitFor(() => expect(asked()).toBe(1));
    first.emit('data', { watch_id: '-1', header: header(10), events: [] });
    // Answered: it is asked again only after another quiet period, and then it says nothing.
    await vi.waitFor(() => expect(asked()).toBe(2));
    const second = await created(1, 1);
    expect(second.creates()[0]).toMatchObject({ watch_id: 1, start_revision: '11' });
    expect(resumes).toEqual(['stalled']);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toBeInstanceOf(GRPCDeadlineExceededError);
    stream.close();
  });
});
