/**
 * When `watch` says something about its connection on stderr. Its watch stream (src/pubsub/watch/watch-stream.ts) is
 * re-created after every failed try, with a growing backoff, and reports each one; printed as they come, an outage of
 * an hour is a wall of identical lines. One outage is said once when it begins, then again after
 * 10 s, 30 s, 1 min, 2 min, 5 min and every 5 min while it lasts, and once more when the stream is back. A stream that
 * breaks again within 10 s of coming back is the same outage, not a new one (a flapping member).
 */
export type ReconnectNotice =
  | { kind: 'down' }
  | { kind: 'still-down'; elapsedMs: number }
  | { kind: 'back'; elapsedMs: number };

/** Reminders while an outage lasts, from its start; after the last one, every `REPEAT_MS`. */
const REMINDERS_MS = [10_000, 30_000, 60_000, 120_000, 300_000];
const REPEAT_MS = 300_000;
/** A stream up this long ends the outage: the next break is a new one; a shorter life is the same outage (flapping). */
const STABLE_MS = 10_000;

interface Outage {
  readonly since: number;
  reminders: number;
  /** When the stream came back, while it stays up. */
  upSince: number | undefined;
  backSaid: boolean;
}

export class ReconnectNotices {
  private outage: Outage | undefined;

  /** The stream broke at `at`: what to say, if anything. */
  disconnected(at: number): ReconnectNotice | undefined {
    const outage = this.outage;
    if (outage === undefined || (outage.upSince !== undefined && at - outage.upSince >= STABLE_MS)) {
      this.outage = { since: at, reminders: 0, upSince: undefined, backSaid: false };
      return { kind: 'down' };
    }
    outage.upSince = undefined;
    const elapsedMs = at - outage.since;
    if (elapsedMs < reminderAt(outage.reminders)) return undefined;
    outage.reminders++;
    // Said to be down again: its return is worth saying again too.
    outage.backSaid = false;
    return { kind: 'still-down', elapsedMs };
  }

  /** The stream is (re)created at `at`. */
  connected(at: number): ReconnectNotice | undefined {
    const outage = this.outage;
    if (outage === undefined || outage.upSince !== undefined) return undefined;
    outage.upSince = at;
    if (outage.backSaid) return undefined;
    outage.backSaid = true;
    return { kind: 'back', elapsedMs: at - outage.since };
  }
}

function reminderAt(index: number): number {
  const last = REMINDERS_MS.length - 1;
  return index <= last ? (REMINDERS_MS[index] as number) : (REMINDERS_MS[last] as number) + (index - last) * REPEAT_MS;
}

/**
 * A watch stream's error in a few words: gRPC's message without its resolver note (which is empty or repeats the
 * address). gRPC names the address it could not connect to, e.g. `14 UNAVAILABLE: No connection established. Last
 * error: Error: connect ECONNREFUSED 127.0.0.1:2379`.
 */
export function streamCause(error: unknown): string {
  const text = error instanceof Error ? error.message : error === undefined ? '' : String(error);
  return text.replace(/\s*Resolution note:.*$/s, '').replace(/\.$/, '').trim() || 'the stream ended';
}

/** `12 s`, `2 min 5 s`: how long an outage has lasted. */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 === 0 ? '' : ` ${s % 60} s`}`;
}
