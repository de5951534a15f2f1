import { before, UrgencyQueue, type Ranked } from './urgency-queue.js';

/** What the ready queue needs of an operation: its rank, and whether it renews a lease that is still open. */
export interface Sheddable extends Ranked {
  /** A renewal of a key whose holder's window is still open: shed only after fresh work (`shedFirst`). */
  readonly renewal: boolean;
}

/**
 * The group committer's operations ready to be sent. Sending and shedding follow different orders:
 *
 * - *Sent* most urgent first: a renewal is due some time before its holder's window ends (LeaseBackend.renewSchedule),
 *   anything else when it arrives (urgency-queue.ts). So fresh work goes before renewals that have time to spare, and
 *   a renewal that is due goes before all fresh work.
 * - *Shed* fresh work first (the newest first), and a renewal of a lease that is still open only when no fresh work
 *   waits — and only while renewals are much of the load (`renewalsMayGo`): beside a flood of fresh work, the few
 *   renewals of held leases are what must get through. Among renewals, the one with the most time left goes first.
 *
 * Two urgency queues, one per kind, so that every operation stays O(log n).
 */
export class ReadyQueue<T extends Sheddable> {
  private readonly fresh = new UrgencyQueue<T>();
  private readonly renewals = new UrgencyQueue<T>();

  get size(): number {
    return this.fresh.size + this.renewals.size;
  }

  push(item: T): void {
    this.of(item).push(item);
  }

  remove(item: T): void {
    this.of(item).remove(item);
  }

  /**
   * The operation to send next, left in the queue: a renewal that is due at `now` before any fresh work — fresh work
   * waiting since before that due time included: beside a flood, a second of it waits, and a renewal sent behind it
   * would miss its window — else the most urgent of either kind.
   */
  peekSoonest(now: number): T | undefined {
    const fresh = this.fresh.peekSoonest();
    const renewal = this.renewals.peekSoonest();
    if (fresh === undefined) return renewal;
    return renewal !== undefined && (renewal.urgentAt <= now || before(renewal, fresh)) ? renewal : fresh;
  }

  /**
   * What to shed when `newcomer` (queued or not) would take the queue past its bound: `newcomer` itself, a queued
   * operation, or undefined when nothing may be shed (only renewals of open leases wait, and they are a small share of
   * the load: the newcomer is then admitted past the bound). Ties go against the newcomer.
   */
  shedFirst<N extends Sheddable>(newcomer: N, renewalsMayGo: boolean): T | N | undefined {
    const fresh = later(this.fresh.peekLatest(), newcomer.renewal ? undefined : newcomer);
    if (fresh !== undefined || !renewalsMayGo) return fresh;
    return later(this.renewals.peekLatest(), newcomer.renewal ? newcomer : undefined);
  }

  /** Every queued operation, emptying the queue (close). */
  drain(): T[] {
    return [...this.fresh.drain(), ...this.renewals.drain()];
  }

  private of(item: T): UrgencyQueue<T> {
    return item.renewal ? this.renewals : this.fresh;
  }
}

/** The one of a queued operation and a newcomer to shed first: the later due; on a tie, the newcomer. */
function later<T extends Ranked, N extends Ranked>(queued: T | undefined, newcomer: N | undefined): T | N | undefined {
  if (newcomer === undefined) return queued;
  if (queued === undefined) return newcomer;
  return newcomer.urgentAt < queued.urgentAt ? queued : newcomer;
}
