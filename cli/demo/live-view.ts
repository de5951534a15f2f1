import { quote } from '../key-text.js';
import type { FaultEvent } from './fault-plan.js';
import type { LiveState } from './live-state.js';
import { shortOwner } from './owner-token.js';
import { now } from './worker-protocol.js';

export interface MemberView {
  readonly name: string;
  readonly state: 'running' | 'paused' | 'killed';
  readonly leader: boolean;
}

const STATUS_EVERY_MS = 5000;

/**
 * The demo's terminal output. On a TTY one block is redrawn in place (who owns what, ops/s,
 * members, faults); otherwise (CI, a test, a pipe) faults are printed as they happen and a
 * one-line status every few seconds, so logs stay readable.
 */
export class LiveView {
  private readonly events: string[] = [];
  private drawnLines = 0;
  private lastStatusAt = 0;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly heading: string,
    private readonly startAt: number,
    private readonly durationMs: number,
  ) {}

  private get tty(): boolean {
    return this.out.isTTY === true;
  }

  event(event: FaultEvent): void {
    const line = `${stamp(event.at - this.startAt)}  ${event.kind === 'elected' ? '' : 'fault: '}${event.note}`;
    this.events.push(line);
    if (!this.tty) this.out.write(`${line}\n`);
  }

  note(text: string): void {
    const line = `${stamp(now() - this.startAt)}  ${text}`;
    this.events.push(line);
    if (!this.tty) this.out.write(`${line}\n`);
  }

  render(state: LiveState, members: readonly MemberView[] | undefined): void {
    const at = now();
    if (!this.tty) {
      if (at - this.lastStatusAt < STATUS_EVERY_MS) return;
      this.lastStatusAt = at;
      const held = [...state.keys.values()].filter((k) => k.owner !== undefined).length;
      this.out.write(
        `${stamp(at - this.startAt)}  ${state.total} ops (${state.opsPerSecond(at).toFixed(0)}/s), ${state.lost} lost, ${state.errors} errors, ${held}/${state.keys.size} keys held\n`,
      );
      return;
    }
    const lines = [
      `${this.heading}   ${(Math.min(at - this.startAt, this.durationMs) / 1000).toFixed(1)} s / ${this.durationMs / 1000} s`,
      '',
    ];
    if (members !== undefined) {
      lines.push(`members  ${members.map((m) => `${m.name} ${m.state === 'running' ? (m.leader ? '★ leader' : '● up') : m.state === 'paused' ? '⏸ paused' : '✖ killed'}`).join('   ')}`);
    }
    const codes = [...state.errorCodes].map(([code, n]) => `${code} ×${n}`).join(', ');
    lines.push(
      `ops      ${state.total} total   ${state.opsPerSecond(at).toFixed(0)}/s   ${state.lost} lost (held by another)   ${state.errors} errors${codes ? ` (${codes})` : ''}`,
      '',
      'owners',
    );
    const width = Math.max(...[...state.keys.keys()].map((k) => quote(k).length));
    for (const [key, view] of state.keys) {
      const owner = view.owner === undefined ? '—' : `${shortOwner(view.owner).padEnd(12)}${view.fencingToken ? ` token ${view.fencingToken}` : ''}${at > view.believedUntil ? '  (lapsed?)' : ''}`;
      lines.push(`  ${quote(key).padEnd(width)}  ${owner}`);
    }
    lines.push('', 'faults', ...(this.events.length === 0 ? ['  (none yet)'] : this.events.slice(-8).map((e) => `  ${e}`)));
    // Up to the first line of the previous frame, clear to the end, draw again.
    const rewind = this.drawnLines > 0 ? `\x1b[${this.drawnLines}F\x1b[J` : '';
    this.out.write(`${rewind}${lines.join('\n')}\n`);
    this.drawnLines = lines.length;
  }
}

function stamp(ms: number): string {
  return `[${(ms / 1000).toFixed(1).padStart(5)} s]`;
}
