import type { KeyValue } from '../../operations/etcd-txn.js';
import { DeliveryCursor } from './delivery-cursor.js';

/**
 * One local fan-out subscriber of a topic's feed (topic-feed.ts): what it has been given, and what waits while it
 * catches up. Pure state; the feed decides when it catches up and with what.
 *
 * A member starts *joining*: the feed's live events are buffered. Once the feed knows where it starts — after the
 * topic's retained events for `'earliest'`, after the feed's position for `'latest'` — `catchUp` delivers those
 * retained events, then the buffer, and from then on every live event at once. Its cursor lets each event through
 * once, so overlaps between a replay and the buffer, or a watch behind a read, cost nothing. When the feed loses its
 * watch it puts every member back to joining (`rejoin`) and catches them all up after a re-read.
 */
export class FeedMember {
  private readonly cursor = new DeliveryCursor();
  /** Live events while joining; undefined once live. */
  private buffer: KeyValue[] | undefined = [];
  /** Its starting point is set: a re-read may catch it up. */
  private placed = false;
  private stopped = false;
  private resolveLive!: () => void;
  /** Resolves once the member is live (never rejects; a stopped member resolves too). */
  readonly live = new Promise<void>((resolve) => (this.resolveLive = resolve));

  /** @param deliver gets the stored value of every event to hand on, in topic order, once each */
  constructor(
    readonly startFrom: 'earliest' | 'latest',
    private readonly deliver: (value: Buffer) => void,
  ) {}

  /** False once stopped: redeliveries still pending for it are dropped. */
  get active(): boolean {
    return !this.stopped;
  }

  /** Waiting for a catch-up: its starting point is set and it is not live. */
  get waiting(): boolean {
    return this.placed && this.buffer !== undefined && !this.stopped;
  }

  get joining(): boolean {
    return this.buffer !== undefined && !this.stopped;
  }

  /** A live event of the feed, in topic order. */
  offer(kv: KeyValue): void {
    if (this.stopped) return;
    if (this.buffer) this.buffer.push(kv);
    else this.pass(kv);
  }

  /** `'latest'`: everything up to `revision` counts as seen. */
  startAfter(revision: bigint): void {
    this.cursor.skipThrough(revision);
    this.placed = true;
  }

  /** `'earliest'`: the member starts at the topic's retained events (the next catch-up's). */
  startAtRetained(): void {
    this.placed = true;
  }

  /** Delivers `retained` (in topic order) and then what was buffered, each event it has not had yet; live from now. */
  catchUp(retained: readonly KeyValue[]): void {
    if (this.stopped || !this.buffer) return;
    for (const kv of retained) this.pass(kv);
    const buffered = this.buffer;
    this.buffer = undefined;
    for (const kv of buffered) this.pass(kv);
    this.resolveLive();
  }

  /** The feed lost its watch: buffer again until it has re-read the topic. */
  rejoin(): void {
    if (this.stopped || this.buffer) return;
    this.buffer = [];
  }

  stop(): void {
    this.stopped = true;
    this.buffer = undefined;
    this.resolveLive();
  }

  /** The last revision this member was given (or its starting point). */
  get revision(): bigint {
    return this.cursor.revision;
  }

  /** Events count by their creation: a read finds an event written again (moved to another lease) at a later revision. */
  private pass(kv: KeyValue): void {
    if (!this.stopped && this.cursor.accept(kv.create_revision, kv.key)) this.deliver(kv.value);
  }
}
