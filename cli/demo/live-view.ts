import type { FaultEvent, FaultKind } from './fault-plan.js';
import { count } from './count-words.js';
import { liveFrame, type MemberView } from './live-frame.js';
import type { LiveState } from './live-state.js';
import { now } from './worker-protocol.js';

const STATUS_EVERY_MS = 5000;
/** Alternate screen on, cursor hidden; and back. */
const ENTER = '\x1b[?1049h\x1b[?25l';
const LEAVE = '\x1b[?25h\x1b[?1049l';
/** What each event line says it is: only kills and pauses are faults (what the summary counts). */
const EVENT_LABEL: Record<FaultKind, string> = { kill: 'fault: ', pause: 'fault: ', restart: 'repair: ', resume: 'repair: ', elected: '' };

/**
 * The demo's terminal output. On a TTY the view lives on the terminal's alternate screen (as `top` does), redrawn
 * from its top-left corner, each frame cut to the terminal's size (live-frame.ts): nothing wraps or scrolls, so
 * nothing is left behind in the scrollback, whatever the width, and a resize redraws at once. When it closes,
 * the normal screen comes back and the last frame is printed there once, in full. Otherwise (CI, a test, a
 * pipe) faults are printed as they happen and a one-line status every few seconds, so logs stay readable.
 */
export class LiveView {
  private readonly events: string[] = [];
  private lastStatusAt = 0;
  private stoppingText: string | undefined;
  private last: { state: LiveState; members: readonly MemberView[] | undefined } | undefined;
  private open = false;
  private readonly restore = (): void => void this.out.write(LEAVE);
  private readonly onResize = (): void => {
    if (this.last) this.render(this.last.state, this.last.members);
  };

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly heading: string,
    private readonly startAt: number,
    private readonly durationMs: number,
  ) {}

  private get tty(): boolean {
    return this.out.isTTY === true;
  }

  /** Takes over the screen (TTY only); an exit hook gives it back even if the demo dies without `close`. */
  start(): void {
    if (!this.tty || this.open) return;
    this.open = true;
    this.out.write(ENTER);
    process.once('exit', this.restore);
    this.out.on('resize', this.onResize);
  }

  event(event: FaultEvent): void {
    this.line(`${stamp(event.at - this.startAt)}  ${EVENT_LABEL[event.kind]}${event.note}`);
  }

  note(text: string): void {
    this.line(`${stamp(now() - this.startAt)}  ${text}`);
  }

  /**
   * Ctrl-C. On the live screen the message takes the time line's place and stays until the view closes, then it is
   * among the final frame's notes; elsewhere it goes to stderr, as lines do.
   */
  stopping(text: string): void {
    if (!this.open) return void process.stderr.write(`${text}\n`);
    this.stoppingText = text;
    this.note(text);
    if (this.last) this.render(this.last.state, this.last.members);
  }

  render(state: LiveState, members: readonly MemberView[] | undefined): void {
    this.last = { state, members };
    const at = now();
    if (!this.tty) {
      if (at - this.lastStatusAt < STATUS_EVERY_MS) return;
      this.lastStatusAt = at;
      const held = [...state.keys.values()].filter((k) => k.owner !== undefined).length;
      this.out.write(
        `${stamp(at - this.startAt)}  ${count(state.total, 'op')} (${state.opsPerSecond(at).toFixed(0)}/s), ${state.contended} contended, ` +
          `${count(state.refused, 'lease')} lost, ${count(state.errors, 'error')}, ${held}/${state.keys.size} keys held\n`,
      );
      return;
    }
    if (!this.open) return;
    const size = { columns: this.out.columns || 80, rows: this.out.rows || 24 };
    const lines = liveFrame(this.frameInput(state, members, at), size);
    // Home, each line then clear to its end, clear below: no full-screen clear, so no flicker.
    this.out.write(`\x1b[H${lines.map((line) => `${line}\x1b[K`).join('\r\n')}\x1b[J`);
  }

  /** Gives the screen back and prints the last frame there, uncut, so it stays in the scrollback. */
  close(): void {
    if (!this.open) return;
    this.open = false;
    this.out.off('resize', this.onResize);
    process.off('exit', this.restore);
    this.out.write(LEAVE);
    if (this.last) this.out.write(`${liveFrame(this.frameInput(this.last.state, this.last.members, now())).join('\n')}\n`);
  }

  private frameInput(state: LiveState, members: readonly MemberView[] | undefined, at: number) {
    return { heading: this.heading, elapsedMs: at - this.startAt, durationMs: this.durationMs, stopping: this.stoppingText, members, state, at, events: this.events };
  }

  private line(text: string): void {
    this.events.push(text);
    if (!this.tty) this.out.write(`${text}\n`);
  }
}

function stamp(ms: number): string {
  return `[${(ms / 1000).toFixed(1).padStart(5)} s]`;
}
