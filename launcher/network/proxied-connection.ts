import { connect, type Socket } from 'node:net';
import { Http2FrameSplitter, RST_STREAM } from './http2-frames.js';
import type { LinkFaults } from './link-faults.js';
import { resetSocket } from './reset-socket.js';

/**
 * What a proxy learns from the first bytes a client sends. `complete: false` asks for more
 * bytes; `source: undefined` means the sender could not be told apart.
 */
export type SourceIdentification =
  | { readonly complete: false }
  | { readonly complete: true; readonly source: string | undefined };

export type SourceIdentifier = (head: Buffer) => SourceIdentification;

/** A sender that has not identified itself within this many bytes never will. */
const MAX_HEAD_BYTES = 64 * 1024;

/**
 * After a cut, requests whose client has gone are delivered and the server is given this long to act
 * on them before the connection closes: a gRPC server cancels the requests of a connection that closes.
 */
export const ORPHAN_GRACE_MS = 2000;

interface QueuedChunk {
  readonly due: number;
  readonly chunk: Buffer;
}

/** One direction of a connection: bytes read from `from`, written to `to`, in order. */
class Channel {
  readonly queue: QueuedChunk[] = [];
  timer: NodeJS.Timeout | undefined;
  /** `from` sent FIN: forward it once everything queued before it is delivered. */
  ended = false;
  waitingForDrain = false;

  constructor(
    readonly from: Socket,
    readonly to: Socket,
  ) {}
}

export interface ProxiedConnectionOptions {
  readonly targetPort: number;
  /** Asked again on every chunk, so a fault change applies to open connections at once. */
  readonly faultsFor: (source: string | undefined) => LinkFaults;
  readonly identifySource: SourceIdentifier | undefined;
  /** The client speaks plaintext HTTP/2 (gRPC): a cut can then hold back its cancellations. */
  readonly http2Client: boolean;
  /** Request bytes held by a cut are being delivered although their client has gone (once per connection). */
  readonly onLateDelivery: () => void;
  readonly onClosed: () => void;
}

/**
 * One client connection and its upstream twin. Faults act on the byte stream only; the
 * connection itself is never closed by a fault, so peers see silence rather than a reset
 * (which etcd and gRPC would otherwise detect and route around at once) — with one exception,
 * a client that cancels a request while its link is cut (see `receive`).
 */
export class ProxiedConnection {
  private readonly request: Channel;
  private readonly response: Channel;
  private source: string | undefined;
  private head: Buffer[] | undefined;
  private readonly frames: Http2FrameSplitter | undefined;
  /** The frame being read is a cancellation held back by a cut: its remaining bytes go too. */
  private droppingFrame = false;
  /** Set once a response byte was discarded: the stream is unparseable from then on. */
  private lostResponseBytes = false;
  /** The client closed or reset its side, or we reset it, while the link was cut. */
  private orphaned = false;
  private clientGone = false;
  private orphanTimer: NodeJS.Timeout | undefined;
  private deliveredLate = false;
  private closed = false;
  private openSockets = 2;

  constructor(
    private readonly client: Socket,
    private readonly options: ProxiedConnectionOptions,
  ) {
    // allowHalfOpen: a FIN from one side must not end the other direction early; we forward
    // each FIN ourselves once the bytes queued before it have been delivered.
    const upstream = connect({ port: options.targetPort, host: '127.0.0.1', allowHalfOpen: true });
    // Nagle would add its own delay on top of the injected one and blur latency tests.
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    this.request = new Channel(client, upstream);
    this.response = new Channel(upstream, client);
    this.head = options.identifySource === undefined ? undefined : [];
    this.frames = options.http2Client ? new Http2FrameSplitter() : undefined;

    for (const channel of [this.request, this.response]) {
      channel.from.on('data', (chunk: Buffer) => this.receive(channel, chunk));
      channel.from.on('end', () => {
        channel.ended = true;
        if (channel === this.request && this.faults().cut) this.orphaned = true;
        this.flush(channel);
      });
      channel.to.on('drain', () => {
        channel.waitingForDrain = false;
        this.applyHold();
      });
    }
    // An error on either side (a killed member refuses or resets) is passed on as a reset,
    // which is what a client of a dead host would see. A client that goes away while its link is
    // cut leaves what it sent behind, to arrive late.
    client.on('error', () => (this.faults().cut || this.orphaned ? this.abandonClient() : this.reset()));
    upstream.on('error', () => this.reset());
    for (const socket of [client, upstream]) {
      socket.on('close', () => {
        this.openSockets -= 1;
        if (this.openSockets === 0) this.finish();
      });
    }
    this.applyHold();
  }

  /** Re-read the faults after they changed: release held bytes, reset corrupted streams. */
  update(): void {
    if (this.closed) return;
    if (this.lostResponseBytes && !this.faults().dropResponses) {
      this.reset();
      return;
    }
    this.flush(this.request);
    this.flush(this.response);
  }

  /** Close both sides with RST, dropping anything still queued. */
  reset(): void {
    if (this.closed) return;
    this.finish();
    for (const socket of [this.request.from, this.response.from]) resetSocket(socket);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.request.timer);
    clearTimeout(this.response.timer);
    clearTimeout(this.orphanTimer);
    this.options.onClosed();
  }

  private faults(): LinkFaults {
    return this.options.faultsFor(this.source);
  }

  private receive(channel: Channel, chunk: Buffer): void {
    if (this.closed) return;
    if (channel === this.request && this.head !== undefined) {
      const identified = this.identify(chunk);
      if (identified === undefined) return;
      chunk = identified;
    }
    const faults = this.faults();
    if (channel === this.response) {
      if (faults.dropResponses) {
        this.lostResponseBytes = true;
        return;
      }
      if (this.clientGone) return;
      this.enqueue(channel, chunk, faults);
    } else if (this.frames === undefined) {
      this.enqueue(channel, chunk, faults);
    } else {
      // A client whose deadline passes cancels its request (RST_STREAM). Delivered after the request, the
      // cancellation would race its proposal inside etcd (a 50/50 select in raft's Propose), so a cut keeps
      // it back: the held request then lands for sure, like one already proposed when its client gave up.
      // And because grpc-js keeps one connection per member for the whole process (its global subchannel
      // pool), the client's next attempt would otherwise queue behind the held one on the same connection:
      // its side of the connection is reset instead, so its retries need a new one, which the cut refuses.
      let cancelled = false;
      for (const piece of this.frames.push(chunk)) {
        if (piece.startsFrame) this.droppingFrame = faults.cut && piece.frameType === RST_STREAM;
        if (this.droppingFrame) cancelled = true;
        else this.enqueue(channel, piece.bytes, faults);
      }
      if (cancelled) this.abandonClient();
    }
    this.flush(channel);
  }

  private enqueue(channel: Channel, chunk: Buffer, faults: LinkFaults): void {
    // The queue is delivered in order, so a chunk that drew a shorter delay waits for the one before it (TCP order).
    const delay = faults.latencyMs + Math.random() * faults.jitterMs;
    channel.queue.push({ due: Date.now() + delay, chunk });
  }

  /**
   * Holds request bytes until the sender is known, because the sender decides the faults
   * (a peer cut off by a blackhole must not slip its first request through). Returns the
   * whole head once identification is over.
   */
  private identify(chunk: Buffer): Buffer | undefined {
    const head = this.head ?? [];
    head.push(chunk);
    const bytes = Buffer.concat(head);
    const result = this.options.identifySource?.(bytes) ?? { complete: true, source: undefined };
    if (!result.complete && bytes.length < MAX_HEAD_BYTES) {
      this.head = [bytes];
      return undefined;
    }
    this.source = result.complete ? result.source : undefined;
    this.head = undefined;
    return bytes;
  }

  /** The client is gone while its link is cut: what it sent stays queued for delivery; answers go nowhere. */
  private abandonClient(): void {
    this.orphaned = true;
    if (this.clientGone) return;
    this.clientGone = true;
    this.response.queue.length = 0;
    resetSocket(this.client);
  }

  private held(channel: Channel, faults: LinkFaults): boolean {
    return faults.cut || (channel === this.request ? faults.holdRequests : faults.holdResponses);
  }

  private flush(channel: Channel): void {
    clearTimeout(channel.timer);
    channel.timer = undefined;
    if (this.closed) return;
    this.applyHold();
    if (this.held(channel, this.faults())) return;
    if (channel.to.destroyed) {
      channel.queue.length = 0;
      return;
    }
    if (channel === this.request && this.orphaned && channel.queue.length > 0 && !this.deliveredLate) {
      this.deliveredLate = true;
      this.options.onLateDelivery();
    }
    const now = Date.now();
    while (channel.queue.length > 0) {
      const next = channel.queue[0]!;
      if (next.due > now) {
        channel.timer = setTimeout(() => this.flush(channel), next.due - now);
        return;
      }
      channel.queue.shift();
      if (!channel.to.write(next.chunk)) channel.waitingForDrain = true;
    }
    if (channel === this.request && this.orphaned) this.closeUpstreamLater();
    else if (channel.ended && !channel.to.writableEnded) channel.to.end();
    this.applyHold();
  }

  /** Every request of a gone client has been delivered: give the server time to act on them, then close. */
  private closeUpstreamLater(): void {
    if (this.orphanTimer !== undefined) return;
    this.orphanTimer = setTimeout(() => {
      if (!this.request.to.writableEnded) this.request.to.end();
    }, ORPHAN_GRACE_MS);
  }

  /**
   * Stops reading while held (so the sender's kernel buffers hold the bytes, not our memory) or while
   * the other side is not draining (ordinary backpressure). A cut keeps reading: what arrives is kept here,
   * so it survives its sender going away.
   */
  private applyHold(): void {
    if (this.closed) return;
    const faults = this.faults();
    for (const channel of [this.request, this.response]) {
      if (channel.from.destroyed) continue;
      // Request bytes keep flowing into the head buffer until the sender is known.
      const identifying = channel === this.request && this.head !== undefined;
      const holding = !faults.cut && !identifying && this.held(channel, faults);
      const pause = holding || channel.waitingForDrain;
      if (pause && !channel.from.isPaused()) channel.from.pause();
      if (!pause && channel.from.isPaused()) channel.from.resume();
    }
  }
}
