import { connect, type Socket } from 'node:net';
import type { LinkFaults } from './link-faults.js';

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
  readonly onClosed: () => void;
}

/**
 * One client connection and its upstream twin. Faults act on the byte stream only; the
 * connection itself is never closed by a fault, so peers see silence rather than a reset
 * (which etcd and gRPC would otherwise detect and route around at once).
 */
export class ProxiedConnection {
  private readonly request: Channel;
  private readonly response: Channel;
  private source: string | undefined;
  private head: Buffer[] | undefined;
  /** Set once a response byte was discarded: the stream is unparseable from then on. */
  private lostResponseBytes = false;
  private closed = false;
  private openSockets = 2;

  constructor(
    client: Socket,
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

    for (const channel of [this.request, this.response]) {
      channel.from.on('data', (chunk: Buffer) => this.receive(channel, chunk));
      channel.from.on('end', () => {
        channel.ended = true;
        this.flush(channel);
      });
      channel.to.on('drain', () => {
        channel.waitingForDrain = false;
        this.applyHold();
      });
    }
    for (const socket of [client, upstream]) {
      // An error on either side (a killed member refuses or resets) is passed on as a reset,
      // which is what a client of a dead host would see.
      socket.on('error', () => this.reset());
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
    for (const socket of [this.request.from, this.response.from]) {
      if (socket.destroyed) continue;
      try {
        socket.resetAndDestroy();
      } catch {
        socket.destroy();
      }
    }
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.request.timer);
    clearTimeout(this.response.timer);
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
    if (channel === this.response && faults.dropResponses) {
      this.lostResponseBytes = true;
      return;
    }
    channel.queue.push({ due: Date.now() + faults.latencyMs, chunk });
    this.flush(channel);
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

  private flush(channel: Channel): void {
    clearTimeout(channel.timer);
    channel.timer = undefined;
    if (this.closed) return;
    this.applyHold();
    if (this.faults().blackhole) return;
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
    if (channel.ended && !channel.to.writableEnded) channel.to.end();
    this.applyHold();
  }

  /**
   * Stops reading while blackholed (so the sender's kernel buffers hold the bytes, not our
   * memory) or while the other side is not draining (ordinary backpressure).
   */
  private applyHold(): void {
    if (this.closed) return;
    const blackhole = this.faults().blackhole;
    for (const channel of [this.request, this.response]) {
      // Request bytes keep flowing into the head buffer until the sender is known.
      const identifying = channel === this.request && this.head !== undefined;
      const hold = (blackhole && !identifying) || channel.waitingForDrain;
      if (hold && !channel.from.isPaused()) channel.from.pause();
      if (!hold && channel.from.isPaused()) channel.from.resume();
    }
  }
}
