import type { ClockMoment } from '../../clock/lease-clock.js';

/** One event waiting in its topic's queue. */
export interface QueuedEvent {
  readonly kind: 'event';
  readonly key: Buffer;
  readonly value: Buffer;
  /** When `publish` was called, on the LeaseClock: the retention lease is chosen for it. */
  readonly sent: ClockMoment;
  readonly mode: 'durable' | 'write-behind';
  /** When it was queued, on the timer clock (performance.now()). */
  readonly queuedAt: number;
}

/** A `clearTopic` waiting behind the topic's earlier publishes. */
export interface QueuedClear {
  readonly kind: 'clear';
  readonly queuedAt: number;
}

type QueuedItem = QueuedEvent | QueuedClear;

/** The bounds of one batch (POLICY.events.batch says why they are what they are). */
export interface BatchLimits {
  /** Events per batch. */
  maxEvents: number;
  /** Bytes of keys and values per batch. */
  maxBytes: number;
  /** How long write-behind events may wait for company before their batch leaves. */
  writeBehindFlushMs: number;
}

/**
 * The publish queue of one topic: FIFO, at most one batch in flight. Per-publisher order needs that: the group
 * committer keeps several transactions in flight and retries each caller on its own, so two events sent as separate
 * transactions could commit in either order. Here the events that queued while a batch was in flight leave
 * together as the next batch, one all-or-nothing sub-transaction, retried as a unit.
 *
 * Write-behind events wait up to `writeBehindFlushMs` for more events to share their batch, unless something
 * durable (an awaited publish, a clear) is queued: then everything before it leaves at once, in order.
 *
 * Pure state: the publisher owns the timers and the I/O.
 */
export class TopicQueue<T extends QueuedItem = QueuedItem> {
  private readonly items: T[] = [];
  private inFlight = false;

  constructor(private readonly limits: BatchLimits) {}

  get size(): number {
    return this.items.length;
  }

  get busy(): boolean {
    return this.inFlight;
  }

  /** Nothing queued and nothing in flight: the queue may be dropped. */
  get idle(): boolean {
    return !this.inFlight && this.items.length === 0;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** Removes a queued item (its caller gave up); false when it already left in a batch. */
  remove(item: T): boolean {
    const index = this.items.indexOf(item);
    if (index < 0) return false;
    this.items.splice(index, 1);
    return true;
  }

  /** Removes and returns queued items `expired` selects (their deadline passed while they waited). */
  expire(expired: (item: T) => boolean): T[] {
    const gone = this.items.filter(expired);
    for (const item of gone) this.items.splice(this.items.indexOf(item), 1);
    return gone;
  }

  /**
   * The next batch, marked in flight, or undefined when a batch is already in flight, nothing is queued, or only
   * write-behind events are queued and the oldest has waited less than the flush interval (see `dueAt`).
   * A clear always leaves alone; events leave up to the limits, the first one whatever its size.
   */
  take(now: number): T[] | undefined {
    if (this.inFlight || this.items.length === 0) return undefined;
    const head = this.items[0]!;
    if (head.kind === 'clear') return this.start(1);
    let count = 0;
    let bytes = 0;
    for (const item of this.items) {
      if (item.kind !== 'event' || count >= this.limits.maxEvents) break;
      const size = item.key.length + item.value.length;
      if (count > 0 && bytes + size > this.limits.maxBytes) break;
      count++;
      bytes += size;
    }
    const full = count < this.items.length; // more is queued than this batch carries
    const waitedEnough = now - head.queuedAt >= this.limits.writeBehindFlushMs;
    const urgent = this.items.some((item) => item.kind === 'clear' || item.mode === 'durable');
    if (!full && !urgent && !waitedEnough) return undefined;
    return this.start(count);
  }

  /** When held write-behind events become due (timer clock), or undefined when nothing is being held. */
  dueAt(): number | undefined {
    if (this.inFlight || this.items.length === 0) return undefined;
    return this.items[0]!.queuedAt + this.limits.writeBehindFlushMs;
  }

  /** The batch in flight has settled (written or given up): the next one may leave. */
  settle(): void {
    this.inFlight = false;
  }

  private start(count: number): T[] {
    this.inFlight = true;
    return this.items.splice(0, count);
  }
}
