import type { ClockSource } from '../../src/clock/clock-source.js';

/**
 * A ClockSource (src/clock) whose monotonic clock can be stopped, to emulate a machine that is suspended
 * (a laptop lid, a paused VM): CLOCK_MONOTONIC stops, the wall clock and etcd's clock run on.
 */
export class SuspendableClock implements ClockSource {
  private frozenAt: number | undefined;
  private stoppedMs = 0;
  private wallAheadMs = 0;

  monotonic(): number {
    return (this.frozenAt ?? performance.now()) - this.stoppedMs;
  }

  wall(): number {
    return Date.now() + this.wallAheadMs;
  }

  /** The monotonic clock stops; wall time (and etcd's) runs on. The process itself keeps running. */
  freeze(): void {
    this.frozenAt ??= performance.now();
  }

  /** The monotonic clock runs again from where it stopped: the time in between is never counted. */
  thaw(): void {
    if (this.frozenAt === undefined) return;
    this.stoppedMs += performance.now() - this.frozenAt;
    this.frozenAt = undefined;
  }

  /**
   * A suspend of about `ms` as etcd sees it: the whole process stops (its thread blocks, nothing runs) and its
   * monotonic clock does not count the time, while wall time and etcd's clock run on. Returns when it resumed
   * (performance.now()).
   */
  suspendProcess(ms: number): number {
    this.freeze();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    this.thaw();
    return performance.now();
  }

  /**
   * A suspend of `ms` as the process sees it on waking: the wall clock is `ms` further on, the monotonic clock
   * is not, and no timer armed before has fired yet (Node's timers run on the monotonic clock). Only etcd's clock
   * did not move: for tests of what the process does when it wakes, not of what etcd did meanwhile.
   */
  jumpWall(ms: number): void {
    this.wallAheadMs += ms;
  }
}
