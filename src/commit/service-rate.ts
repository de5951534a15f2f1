/**
 * How many operations the group committer gets answered per millisecond while work is waiting: what it can serve,
 * as measured, rather than what its pipeline could carry in theory (transactions in flight × batch size ÷ commit
 * time). The two part when the client process itself runs short of CPU: commits still take as long, but slots sit
 * free between an answer and the next send, and the theory then overstates what the queue will drain.
 *
 * Counted over windows of `windowMs`; a window counts only if work waited throughout (an idle moment means the rate
 * was demand's, not capacity's). Successive windows are averaged; a measure older than `staleMs` is dropped.
 *
 * Only time in which answers came counts. A silence — no answer for longer than the `silentMs` each answer passes
 * (a few commit times) — is an election or an outage: nothing can commit then, whatever the cluster's capacity, and
 * counting it would make the queue's bound fall to its floor just as the backlog the silence left is about to drain.
 * So a silence is left out of its window, and a window that is mostly silence says nothing at all. Pure arithmetic on
 * the times it is given.
 */
export class ServiceRate {
  private windowStart = Number.NEGATIVE_INFINITY;
  private ops = 0;
  private idle = true;
  private rate: number | undefined;
  private measuredAt = Number.NEGATIVE_INFINITY;
  private lastAnswerAt = Number.NEGATIVE_INFINITY;
  /** Silences in the current window, in ms. */
  private silenceMs = 0;
  private silentMs = Number.POSITIVE_INFINITY;

  constructor(
    private readonly windowMs = 1000,
    private readonly staleMs = 10_000,
  ) {}

  /** `ops` operations were answered at `now`; a gap of more than `silentMs` since the last answer was a silence. */
  answered(ops: number, now: number, silentMs = Number.POSITIVE_INFINITY): void {
    this.silentMs = silentMs;
    this.roll(now);
    this.silenceMs += this.silenceBefore(now);
    this.ops += ops;
    this.lastAnswerAt = now;
  }

  /** Nothing waited at `now`: the current window says nothing about capacity. */
  drained(now: number): void {
    this.roll(now);
    this.idle = true;
  }

  /** Operations per ms served while work waited, if measured within `staleMs`. */
  perMs(now: number): number | undefined {
    this.roll(now);
    return now - this.measuredAt <= this.staleMs ? this.rate : undefined;
  }

  /** The silence that ends at `now` in the current window, if the gap since the last answer is one. */
  private silenceBefore(now: number): number {
    const gap = now - Math.max(this.lastAnswerAt, this.windowStart);
    return gap > this.silentMs ? gap : 0;
  }

  private roll(now: number): void {
    if (now < this.windowStart + this.windowMs) return;
    if (!this.idle && this.windowStart > Number.NEGATIVE_INFINITY) {
      const answeringMs = now - this.windowStart - this.silenceMs - this.silenceBefore(now);
      // Answers over at least a quarter of the window, or the window is no measure (mostly an election, an outage).
      if (this.ops > 0 && answeringMs >= this.windowMs / 4) {
        const measured = this.ops / answeringMs;
        this.rate = this.rate === undefined || now - this.measuredAt > this.staleMs ? measured : (this.rate + measured) / 2;
        this.measuredAt = now;
      }
    }
    this.windowStart = now;
    this.ops = 0;
    this.idle = false;
    this.silenceMs = 0;
  }
}
