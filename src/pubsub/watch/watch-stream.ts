import type { EventEmitter } from 'node:events';
import { castGrpcError, GRPCDeadlineExceededError, type Etcd3, type IEvent, type IWatchRequest, type IWatchResponse } from 'etcd3';
import type { LeaseLogger } from '../../config/options.js';
import { EtcdSizeLimitError } from '../../errors/size-limit.js';
import type { WatchResumeReason } from '../../metrics/instruments.js';
import { POLICY } from '../../policy.js';
import { isMessageSizeError, messageSizes } from '../../transport/message-size.js';
import { prefixEnd } from '../keys/event-keys.js';
import { untilStopped, type StopSignal } from '../../transport/stop-signal.js';
import { FragmentJoiner } from './fragment-joiner.js';

/** What one watch covers: every key starting with `prefix`. */
interface WatchSpec {
  prefix: Buffer;
  /** Deliver deletions too (consumer groups need them; fan-out does not). */
  deletes: boolean;
  /** Deliver from this revision on, instead of "from now" (the CLI's `watch`, after the snapshot it counted at). */
  from?: bigint;
  /** Each event carries the key's previous version (`prev_kv`). */
  previous?: boolean;
}

export interface WatchHandler {
  /** Events of one or more whole revisions, in revision order (a revision is never split across calls). */
  onEvents(events: IEvent[]): void;
  /**
   * The watch is gone: etcd canceled it because its resume revision was compacted away (`compactRevision` set) or
   * for another reason, or the stream gave it up because what it had to catch up on came back over this client's
   * gRPC receive limit (see `WatchStream`). The owner recovers by watching again from now and re-reading.
   */
  onCanceled(compactRevision: string | undefined, reason: string): void;
}

/** A watch on the shared stream. */
export interface Watch {
  readonly id: number;
  /** The revision the watch was created at ("from now"): it delivers exactly the revisions above it. */
  readonly createdAt: string;
}

interface WatchState {
  readonly id: number;
  readonly spec: WatchSpec;
  readonly handler: WatchHandler;
  /** Next revision to deliver; undefined until the first `created` ("from now") answers. */
  next: bigint | undefined;
  /** Resolves the first create with its revision. */
  onCreated?: (revision: string) => void;
}

/** The slice of gRPC's duplex stream used here. */
export type GrpcDuplex<Req> = EventEmitter & { write(request: Req): boolean; end(): void; cancel(): void };
type Stream = GrpcDuplex<IWatchRequest>;


interface WatchStreamOptions extends Partial<WatchStreamTuning> {
  /** A linearizable read of the cluster revision; also renews an expired auth token (etcd3 does so only on unary calls). */
  readRevision: () => Promise<string>;
  /** Interval of the behind-the-cluster check (ms). */
  checkMs: number;
  /** The silent-member check (ms). @default POLICY.events.watch */
  liveness?: { quietMs: number; answerMs: number };
  logger: LeaseLogger;
  /** The stream is being replaced (`error`: what ended the last one, when something did). */
  onResume: (reason: WatchResumeReason, error?: unknown) => void;
  /** A new stream is open and carries every watch again. */
  onConnected?: () => void;
  /** A response came back over the client's receive limit (see `WatchStream`); the stream already acted on it. */
  onOversize: (error: EtcdSizeLimitError) => void;
}

/**
 * The two defences against responses over gRPC's receive limit, each on by default. A seam for the test suite
 * (test/pubsub/large-events.long.test.ts turns them off to show what each prevents), not an option.
 */
export interface WatchStreamTuning {
  /** Ask etcd (≥ 3.4) to split responses above its `--max-request-bytes` into fragments. @default true */
  fragment: boolean;
  /**
   * When a response still comes back over the client's receive limit, give the resumed watches back to their owners
   * (`onCanceled`), which re-read in byte-bounded pages and watch from now. Off, the stream is reopened and the same
   * watches resumed from the same revisions — which asks for the same response again, forever. @default true
   */
  resyncOversize: boolean;
}

/**
 * One raw etcd watch stream for a whole EtcdPubSub, carrying every watch with ids we choose, each with its own
 * resume revision. etcd3's `Watcher` is not used: at `created` it already moves its resume point to the head, so a
 * disconnect during a catch-up would skip the backlog, and a compaction reaches it only as message text.
 *
 * - A watch is created "from now" and its `created` revision H is the boundary: it delivers exactly what comes after H.
 *   (A watch from a past revision is served by etcd's 100 ms sync loop; "from now" is answered at once.)
 * - On any stream failure the stream is reopened (jittered backoff, 10 ms to 1 s; etcd3 picks a member) and every
 *   watch re-created from its own next revision: nothing is skipped, nothing delivered twice.
 * - A member that hangs (a stopped process, a cut link) keeps the stream open and says nothing. A stream silent for
 *   `quietMs` is asked for its progress — answered by the member from memory, no Raft round, no read — and one that
 *   then stays silent for `answerMs` is replaced: a hung member costs subscribers about `quietMs + answerMs`
 *   (1.5 s), never a linearizable read per check. A busy stream is never asked: its events show the member answers.
 * - A member cut from the quorum answers, but from a store that no longer moves, so every `checkMs` the stream's
 *   progress is also compared with a linearizable read: a member behind for two checks has its stream replaced.
 * - A stream replaced for either reason is failed, not just left: its member is marked failed with the transport
 *   (see `failStream`), so the new stream, and the next attempts, go to another member.
 * - Frame limits. A watch resumed from a past revision is answered with up to 1000 revisions in one response
 *   (etcd's catch-up batch): a few hundred KiB events missed for a second exceed gRPC's default 4 MiB receive limit.
 *   Every watch asks etcd to split such responses (`fragment`; each fragment stays under the member's
 *   `--max-request-bytes`), and `FragmentJoiner` puts them back together by whole revisions. The package's own client
 *   also accepts what etcd can send (POLICY.maxReceiveMessageBytes). Should a response still exceed the receive
 *   limit (a client passed in with a lower one, a member that does not fragment), resuming would ask for it again
 *   forever: the watches that were resuming are handed back to their owners instead, which re-read what they missed
 *   in byte-bounded pages and watch from now — reported as an `EtcdSizeLimitError` through `onOversize`.
 */
export class WatchStream {
  private readonly watches = new Map<number, WatchState>();
  private stream: Stream | undefined;
  private opening: Promise<Stream> | undefined;
  private nextId = 1;
  private closed = false;
  private backoffMs: number = POLICY.events.watch.reopenFirstMs;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private check: { revision: bigint; answered: boolean } | undefined;
  private failedChecks = 0;
  private livenessTimer: NodeJS.Timeout | undefined;
  /** When the current stream last said anything (performance.now). */
  private heardAt = 0;
  /** A progress request outstanding since (undefined: none). */
  private askedAt: number | undefined;
  private tickedAt = 0;
  private readonly liveness: { quietMs: number; answerMs: number };
  private readonly fragments = new FragmentJoiner<IEvent>();
  private readonly tuning: WatchStreamTuning;

  constructor(
    private readonly client: Etcd3,
    private readonly options: WatchStreamOptions,
  ) {
    this.tuning = { fragment: options.fragment ?? true, resyncOversize: options.resyncOversize ?? true };
    const { quietMs, answerMs } = POLICY.events.watch;
    this.liveness = options.liveness ?? { quietMs, answerMs };
  }

  /**
   * Creates a watch "from now" and resolves with it once etcd confirmed it (its boundary revision). Events that come
   * before the caller is ready go to the handler at once; callers buffer them themselves. `signal` abandons the
   * wait (the watch is removed).
   */
  async watch(spec: WatchSpec, handler: WatchHandler, signal: StopSignal): Promise<Watch> {
    if (this.closed) throw new Error('watch stream closed');
    const state: WatchState = { id: this.nextId++, spec, handler, next: spec.from };
    const created = new Promise<string>((resolve) => (state.onCreated = resolve));
    this.watches.set(state.id, state);
    this.ensureChecks();
    const abandon = () => this.cancel(state.id);
    signal.addEventListener('abort', abandon, { once: true });
    try {
      if (this.stream) this.create(this.stream, state);
      else this.connect();
      const revision = await untilStopped(signal, created, () => toError(signal.reason));
      return { id: state.id, createdAt: revision };
    } finally {
      signal.removeEventListener('abort', abandon);
    }
  }

  /** Stops a watch; nothing more reaches its handler. */
  cancel(id: number): void {
    if (!this.watches.delete(id)) return;
    this.fragments.drop(id);
    this.stream?.write({ cancel_request: { watch_id: id } });
    if (this.watches.size === 0) this.stopChecks();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.watches.clear();
    this.stopChecks();
    clearTimeout(this.reconnectTimer);
    this.drop();
  }

  /** The stream is gone or untrusted: replace it, re-creating every watch from its own next revision. */
  private reconnect(reason: WatchResumeReason, error?: unknown): void {
    if (this.closed) return;
    this.drop();
    if (this.watches.size === 0) return;
    this.options.onResume(reason, error);
    this.options.logger.debug?.('event watch stream reconnecting', { reason, error: error === undefined ? undefined : String(error) });
    if (this.reconnectTimer) return;
    const delay = this.backoffMs * (0.5 + Math.random() / 2);
    this.backoffMs = Math.min(POLICY.events.watch.reopenMaxMs, this.backoffMs * 2);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect(true);
    }, delay);
    this.reconnectTimer.unref();
  }

  private connect(afterFailure = false): void {
    if (this.closed || this.opening || this.stream) return;
    this.opening = (async () => {
      // A unary read first: it proves a member answers and renews an expired auth token before the stream uses it.
      if (afterFailure) await this.options.readRevision();
      return (await this.client.watchClient.watch()) as unknown as Stream;
    })();
    this.opening.then(
      (stream) => {
        this.opening = undefined;
        // Closed, or every watch was cancelled while the stream was opening: nothing to carry.
        if (this.closed || this.watches.size === 0) return leaveStream(stream);
        this.stream = stream;
        this.failedChecks = 0;
        this.check = undefined;
        // Opening proves nothing (a hung member accepts the stream): the creates must be answered like any request.
        this.heardAt = performance.now();
        this.askedAt = undefined;
        stream.on('data', (res: IWatchResponse) => this.receive(stream, res));
        stream.on('error', (error: unknown) => this.lost(stream, error));
        stream.on('end', () => this.lost(stream, undefined));
        for (const state of this.watches.values()) this.create(stream, state);
        this.options.onConnected?.();
      },
      (error: unknown) => {
        this.opening = undefined;
        this.reconnect('reconnect', error);
      },
    );
  }

  private lost(stream: Stream, error: unknown): void {
    if (stream !== this.stream) return;
    this.stream = undefined;
    this.fragments.clear();
    const tooLarge = oversize(error);
    if (tooLarge) return this.overflowed(tooLarge, error);
    this.reconnect('reconnect', error);
  }

  /**
   * A response was over this client's receive limit, so gRPC ended the stream, and resuming the watches from their
   * revisions would be answered the same way. Every watch etcd had confirmed is handed back to its owner, which
   * re-reads what it missed in pages and watches again from now. Watches still waiting for `created` ask for nothing
   * old; they go on with a new stream.
   */
  private overflowed(tooLarge: EtcdSizeLimitError, error: unknown): void {
    this.options.onResume('oversize');
    this.options.onOversize(tooLarge);
    if (!this.tuning.resyncOversize) return this.reconnect('reconnect', error);
    const resuming = [...this.watches.values()].filter((state) => state.next !== undefined);
    for (const state of resuming) this.watches.delete(state.id);
    for (const state of resuming) this.safely(() => state.handler.onCanceled(undefined, tooLarge.message));
    if (this.watches.size === 0) this.stopChecks();
    this.reconnect('reconnect', error);
  }

  private drop(): void {
    const stream = this.stream;
    this.stream = undefined;
    this.fragments.clear();
    if (stream) leaveStream(stream);
  }

  private create(stream: Stream, state: WatchState): void {
    stream.write({
      create_request: {
        key: state.spec.prefix,
        range_end: prefixEnd(state.spec.prefix),
        watch_id: state.id,
        fragment: this.tuning.fragment,
        ...(state.spec.deletes ? {} : { filters: ['Nodelete'] }),
        ...(state.spec.previous === true ? { prev_kv: true } : {}),
        ...(state.next === undefined ? {} : { start_revision: state.next.toString() }),
      },
    });
  }

  private receive(stream: Stream, res: IWatchResponse): void {
    if (stream !== this.stream) return;
    this.heardAt = performance.now();
    this.backoffMs = POLICY.events.watch.reopenFirstMs;
    const id = Number(res.watch_id);
    if (id === -1) return this.progress(res); // etcd answers a progress request on no watch in particular
    const state = this.watches.get(id);
    if (!state) return;
    if (res.created) {
      if (state.next === undefined) state.next = BigInt(res.header.revision) + 1n;
      const onCreated = state.onCreated;
      state.onCreated = undefined;
      onCreated?.(res.header.revision);
    }
    if (res.canceled) {
      this.watches.delete(id);
      this.fragments.drop(id);
      const compacted = res.compact_revision !== undefined && res.compact_revision !== '0' ? res.compact_revision : undefined;
      this.safely(() => state.handler.onCanceled(compacted, res.cancel_reason ?? ''));
      return;
    }
    const whole = this.fragments.join(id, res.events ?? [], res.fragment === true);
    const events = whole.filter((e) => state.next === undefined || BigInt(e.kv.mod_revision) >= state.next);
    if (events.length === 0) return;
    state.next = BigInt(events.at(-1)!.kv.mod_revision) + 1n;
    this.safely(() => state.handler.onEvents(events));
  }

  /** A handler's bug must not take the stream (and every other watch) down with it. */
  private safely(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.options.logger.warn?.('an event watch handler threw', { error });
    }
  }

  private progress(res: IWatchResponse): void {
    if (this.check && BigInt(res.header.revision) >= this.check.revision) this.check.answered = true;
  }

  private ensureChecks(): void {
    if (this.checkTimer || this.closed) return;
    this.checkTimer = setInterval(() => void this.runCheck(), this.options.checkMs);
    this.checkTimer.unref();
    const tickMs = this.tickMs();
    this.tickedAt = performance.now();
    this.livenessTimer = setInterval(() => this.checkLiveness(tickMs), tickMs);
    this.livenessTimer.unref();
  }

  private stopChecks(): void {
    clearInterval(this.checkTimer);
    this.checkTimer = undefined;
    this.check = undefined;
    clearInterval(this.livenessTimer);
    this.livenessTimer = undefined;
    this.askedAt = undefined;
  }

  /** Four looks per quiet period: a silence is asked about within a quarter of `quietMs` of becoming one. */
  private tickMs(): number {
    return Math.max(10, Math.min(this.liveness.quietMs, this.liveness.answerMs) / 4);
  }

  /**
   * Is the stream's member still there? A stream quiet for `quietMs` is asked for its progress; one that has not
   * said anything within `answerMs` of the question is replaced. A tick that comes late means this process itself
   * was stalled (a long GC, a busy loop): what it has not read yet says nothing about the member, so that tick
   * judges nothing.
   */
  private checkLiveness(tickMs: number): void {
    const now = performance.now();
    const late = now - this.tickedAt > tickMs + this.liveness.answerMs / 2;
    this.tickedAt = now;
    const stream = this.stream;
    if (!stream || late) return;
    if (this.askedAt !== undefined && this.heardAt < this.askedAt) {
      if (now - this.askedAt >= this.liveness.answerMs) this.stalled('silent');
      return;
    }
    this.askedAt = undefined;
    if (now - this.heardAt < this.liveness.quietMs) return;
    this.askedAt = now;
    stream.write({ progress_request: {} });
  }

  /**
   * The stream's member went silent or fell behind the cluster: leave the stream as failed (its member is counted
   * out, `failStream`) and reopen every watch from its own revision on another member.
   */
  private stalled(why: 'silent' | 'behind'): void {
    const stream = this.stream;
    if (!stream) return;
    const message =
      why === 'silent'
        ? `the event watch stream's member did not answer a progress request within ${this.liveness.answerMs} ms`
        : `the event watch stream's member stayed behind the cluster for ${POLICY.events.watch.stalledChecks} checks`;
    this.options.logger.warn?.(`${message}; reconnecting to another member`);
    this.check = undefined;
    this.failedChecks = 0;
    this.askedAt = undefined;
    this.stream = undefined;
    this.fragments.clear();
    failStream(stream, new GRPCDeadlineExceededError(message));
    this.reconnect('stalled');
  }

  /**
   * Did the stream's member catch up with the revision read at the previous check? A stream whose member stays
   * behind the quorum (or does not answer) for two checks in a row is replaced.
   */
  private async runCheck(): Promise<void> {
    const stream = this.stream;
    if (!stream) return;
    if (this.check) {
      this.failedChecks = this.check.answered ? 0 : this.failedChecks + 1;
      if (this.failedChecks >= POLICY.events.watch.stalledChecks) return this.stalled('behind');
    }
    let revision: string;
    try {
      revision = await this.options.readRevision();
    } catch {
      // Nobody answers: a new stream would fare no better. The check is skipped, not failed.
      this.check = undefined;
      return;
    }
    if (stream !== this.stream) return;
    this.check = { revision: BigInt(revision), answered: false };
    stream.write({ progress_request: {} });
  }
}

/**
 * Leaves a stream: half-closes it, then cancels it. etcd's watch server ignores a half-close (the stream would stay
 * open until the connection ends), so the cancel is what ends it. Ending first matters: etcd3 counts an error of a
 * stream that is still writable against its member and resets that member's connections — right for a member
 * that stopped answering, wrong for a stream we merely stopped using — and after `end()` it is no longer writable.
 */
export function leaveStream(stream: GrpcDuplex<unknown>): void {
  stream.removeAllListeners('data');
  stream.on('error', () => {});
  stream.end();
  stream.cancel();
}

/**
 * Leaves a stream whose member stopped answering or fell behind: the failure is raised on the stream while it is
 * still writable, which etcd3 counts against the stream's member — it resets that member's connections, and the
 * transport's per-member gate opens the member's circuit (transport/member-gate.ts) until a probe of its own answers —
 * so the stream opened next, and the next attempts of every call, go to another member. Merely leaving the stream
 * would count nothing, and the member etcd3 picks next may be the same one.
 */
export function failStream(stream: GrpcDuplex<unknown>, error: Error): void {
  stream.removeAllListeners('data');
  stream.emit('error', error);
  leaveStream(stream);
}

/** A stream error that is gRPC refusing a response over the receive limit, as the typed error; else undefined. */
function oversize(error: unknown): EtcdSizeLimitError | undefined {
  if (!(error instanceof Error)) return undefined;
  const typed = castGrpcError(error);
  if (!isMessageSizeError(typed)) return undefined;
  const sizes = messageSizes(typed);
  return new EtcdSizeLimitError('watch', 'grpc-message', sizes?.sizeBytes, sizes?.limitBytes, error);
}

/** The stop reason as an Error (a scope's reason is one; a bare abort() leaves a DOMException, also one). */
function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(`watch abandoned: ${String(reason)}`);
}
