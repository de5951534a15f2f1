/**
 * How many operations the group committer gets answered per millisecond while work is waiting: what it can serve,
 * as measured, rather than what its pipeline could carry in theory (transactions in flight × batch size ÷ commit
 * time). The two part when the client process itself runs short of CPU: commits still take as long, but slots sit
 * free between an answer and the next send, and the theory then overstates what the queue will drain.
 *
 * Counted over windows of `windowMs`; a window counts only if work waited throughout (an idle moment means the rate
 * was demand's, not capacity's). Successive windows are averaged; a measure older than `staleMs` is dropped.
 *
 * A window a silence reached into (it began, lasted or ended there) says nothing, nor does the window after it. A
 * silence — no answer for longer than the `silentMs` each answer passes (a few commit times) — is an election or an
 * outage: nothing can commit then, whatever the cluster's capacity, and counting it would make the queue's bound fall
 * to its floor just as the backlog the silence left is about to drain. The time right after it is no measure either: the client finds the new leader,
 * connects again, and the first answers trickle in. A window that held 300 ms of that once set the bound to a fifth
 * of what the cluster commits, and the backlog was shed. Pure arithmetic on the times it is given.
 */
export class ServiceRate {
  private windowStart = Number.NEGATIVE_INFINITY;
  private ops = 0;
  private idle = true;
  private rate: number | undefined;
  private measuredAt = Number.NEGATIVE_INFINITY;
  private lastAnswerAt = Number.NEGATIVE_INFINITY;
  /** A silence reached into the current window: it ended there, or was still going on when the window closed. */
  private silent = false;
  /** The window before this one had a silence: this one holds the ramp after it. */
  private afterSilence = false;
  private silentMs = Number.POSITIVE_INFINITY;

  constructor(
    private readonly windowMs = 1000,
    private readonly staleMs = 10_000,
  ) {}

  /** `ops` operations were answered at `now`; a gap of more than `silentMs` since the last answer was a silence. */
  answered(ops: number, now: number, silentMs = Number.POSITIVE_INFINITY): void {
    this.silentMs = silentMs;
    this.roll(now);
    if (this.silenceUntil(now)) this.silent = true;
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

  /** Whether the gap from the last answer to `now` is a silence (before the first answer there is no gap). */
  private silenceUntil(now: number): boolean {
    return this.lastAnswerAt > Number.NEGATIVE_INFINITY && now - this.lastAnswerAt > this.silentMs;
  }

  private roll(now: number): void {
    if (now < this.windowStart + this.windowMs) return;
    const silent = this.silent || this.silenceUntil(now);
    if (!this.idle && this.windowStart > Number.NEGATIVE_INFINITY && this.ops > 0 && !silent && !this.afterSilence) {
      const measured = this.ops / (now - this.windowStart);
      this.rate = this.rate === undefined || now - this.measuredAt > this.staleMs ? measured : (this.rate + measured) / 2;
      this.measuredAt = now;
    }
    this.afterSilence = silent;
    this.windowStart = now;
    this.ops = 0;
    this.idle = false;
    this.silent = false;
  }
}
