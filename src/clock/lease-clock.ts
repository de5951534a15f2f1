import { POLICY } from '../policy.js';
import { SYSTEM_CLOCK, type ClockSource } from './clock-source.js';

/** One moment read on both of the LeaseClock's scales. */
export interface ClockMoment {
  /** LeaseClock ms: never slower than real time. */
  readonly at: number;
  /** Steady ms: never faster than real time. */
  readonly steady: number;
}

/**
 * Elapsed time that never runs slower than real time, for everything the provider promises about TTLs.
 *
 * Each reading advances by the larger of the two raw clocks' advances since the previous reading:
 * - across a suspend the monotonic clock stands still but the wall clock moves on, so the suspend counts;
 * - across a backward NTP step the wall clock goes back but the monotonic clock moves on, so time still passes.
 * A lease's remaining life is computed on this clock, so it can only be underestimated — after a forward
 * wall step, a pooled lease looks older than it is (a new lease is granted: wasteful, never unsafe), and a held
 * lease's window looks over when it is not (the handle asks etcd before it believes that: see `jumpedMs`).
 *
 * It keeps a second scale beside it, `steady`: the monotonic clock's advances alone, which never run faster than real
 * time (a wall-clock step, either way, is not counted; a suspend is not counted either). A lease must outlast a
 * call's need on both scales (leases/lease-choice.ts): the lease-clock scale protects across a suspend, the steady one
 * across a forward step — the process cannot tell the two apart, so it guards against both.
 *
 * Values start near 0 at construction and are comparable only with readings of the same instance.
 */
export class LeaseClock {
  private lastMonotonic: number;
  private lastWall: number;
  private value = 0;
  private steadyValue = 0;
  private jumped = 0;
  private readonly jumpListeners = new Set<(jumpMs: number) => void>();
  private ticker: NodeJS.Timeout | undefined;

  /** Wall-clock milliseconds at which this clock read 0 (lease ids use it so they do not repeat across restarts). */
  readonly wallOrigin: number;

  constructor(private readonly source: ClockSource = SYSTEM_CLOCK) {
    this.lastMonotonic = source.monotonic();
    this.lastWall = source.wall();
    this.wallOrigin = this.lastWall;
  }

  now(): number {
    const monotonic = this.source.monotonic();
    const wall = this.source.wall();
    const byMonotonic = monotonic - this.lastMonotonic;
    const byWall = wall - this.lastWall;
    this.lastMonotonic = monotonic;
    this.lastWall = wall;
    const advance = Math.max(0, byMonotonic, byWall);
    this.value += advance;
    this.steadyValue += Math.max(0, byMonotonic);
    const jump = byWall - Math.max(0, byMonotonic);
    if (jump > POLICY.clockJump.thresholdMs) {
      this.jumped += jump;
      for (const listener of this.jumpListeners) listener(jump);
    }
    return this.value;
  }

  /**
   * The steady scale as of the last reading (`now()`): read it right after `now()` for the pair of one moment.
   * It never runs faster than real time, so the time it says passed between two readings did pass at least.
   */
  get steady(): number {
    return this.steadyValue;
  }

  /** One reading on both scales. */
  moment(): ClockMoment {
    const at = this.now();
    return { at, steady: this.steady };
  }

  /**
   * Total of the jumps seen so far (each reading's wall advance beyond the monotonic one, when over
   * POLICY.clockJump.thresholdMs), as of the last reading. The clock cannot tell a suspend (real time passed: etcd's leases
   * aged) from a forward wall-clock step (no time passed); the difference between two values of this says how much
   * of the time between two readings may be either — something only etcd can settle (handles/held-lease.ts).
   */
  get jumpedMs(): number {
    return this.jumped;
  }

  /**
   * Called (synchronously, from a reading) when the wall clock moved ahead of the monotonic one by more than
   * POLICY.clockJump.thresholdMs: timers armed on the monotonic clock (Node's) are then late by about that much.
   * Returns the function that removes the listener.
   */
  onJump(listener: (jumpMs: number) => void): () => void {
    this.jumpListeners.add(listener);
    if (this.ticker === undefined) {
      this.ticker = setInterval(() => this.now(), POLICY.clockJump.checkEveryMs);
      this.ticker.unref(); // watching the clock never keeps a process alive
    }
    return () => {
      this.jumpListeners.delete(listener);
      if (this.jumpListeners.size === 0 && this.ticker !== undefined) {
        clearInterval(this.ticker);
        this.ticker = undefined;
      }
    };
  }
}
