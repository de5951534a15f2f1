/**
 * How many operations the group committer gets answered per millisecond while work is waiting: what it can serve,
 * as measured, rather than what its pipeline could carry in theory (transactions in flight × batch size ÷ commit
 * time). The two part when the client process itself runs short of CPU: commits still take as long, but slots sit
 * free between an answer and the next send, and the theory then overstates what the queue will drain.
 *
 * Counted over windows of `windowMs`; a window counts only if work waited throughout (an idle moment means the rate
 * was demand's, not capacity's). Successive windows are averaged; a measure older than `staleMs` is dropped. Pure
 * arithmetic on the times it is given.
 */
export class ServiceRate {
  private windowStart = Number.NEGATIVE_INFINITY;
  private ops = 0;
  private idle = true;
  private rate: number | undefined;
  private measuredAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly windowMs = 1000,
    private readonly staleMs = 10_000,
  ) {}

  /** `ops` operations were answered at `now`. */
  answered(ops: number, now: number): void {
    this.roll(now);
    this.ops += ops;
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

  private roll(now: number): void {
    if (now < this.windowStart + this.windowMs) return;
    if (!this.idle && this.windowStart > Number.NEGATIVE_INFINITY) {
      const measured = this.ops / (now - this.windowStart);
      this.rate = this.rate === undefined || now - this.measuredAt > this.staleMs ? measured : (this.rate + measured) / 2;
      this.measuredAt = now;
    }
    this.windowStart = now;
    this.ops = 0;
    this.idle = false;
  }
}
