import { NUL_SHOWN, readableKey } from '../key-text.js';
import { count } from './count-words.js';
import type { LiveState } from './live-state.js';
import { shortOwner } from './owner-token.js';
import { fitLine } from './screen-fit.js';

export interface MemberView {
  readonly name: string;
  readonly state: 'running' | 'paused' | 'killed';
  readonly leader: boolean;
}

export interface FrameInput {
  readonly heading: string;
  readonly elapsedMs: number;
  readonly durationMs: number;
  /** Set once Ctrl-C asked to stop: shown in place of the time line's hint, so it stays on screen. */
  readonly stopping: string | undefined;
  readonly members: readonly MemberView[] | undefined;
  readonly state: LiveState;
  readonly at: number;
  /** Fault and note lines, oldest first. */
  readonly events: readonly string[];
}

/** Fault lines kept on screen when the keys leave room for them. */
const EVENTS_SHOWN = 8;
/** Fault lines kept even when the keys would fill the screen. */
const EVENTS_KEPT = 3;
/** The heading of the event list: it lists more than the faults the summary counts. */
const FAULTS_HEADING = 'faults injected, repairs, elections';

/**
 * One screen of the live view: every line at most `columns - 1` columns (never wrapped by the terminal, so the
 * redraw covers exactly what it drew) and at most `rows - 1` lines (never scrolled): the owners list and the
 * fault list give up lines first (the owners saying how many they left out, the faults keeping the latest).
 * Without a size (the final frame, printed once to the scrollback) nothing is cut and every fault is listed.
 */
export function liveFrame(input: FrameInput, size?: { columns: number; rows: number }): string[] {
  const { state, at } = input;
  const head = [
    input.heading,
    `${(Math.min(input.elapsedMs, input.durationMs) / 1000).toFixed(1)} s of ${input.durationMs / 1000} s   ${input.stopping ?? 'Ctrl-C stops early'}`,
  ];
  if (input.members !== undefined) head.push(`members   ${input.members.map(memberText).join('   ')}`);
  const codes = [...state.errorCodes].map(([code, n]) => `${code} ${n}`).join(', ');
  head.push(
    `ops       ${state.total} in all, ${state.opsPerSecond(at).toFixed(0)}/s, ${count(state.errors, 'error')}${codes ? ` (${codes})` : ''}`,
    `contended ${count(state.contended, 'acquire')}: key held by another worker`,
    `lost      ${count(state.refused, 'lease')}: renew or transfer refused`,
    '',
    `owners    (${NUL_SHOWN} = the NUL between resourceId and threadId)`,
  );
  const width = Math.max(0, ...[...state.keys.keys()].map((k) => readableKey(k).length));
  const owners = [...state.keys].map(([key, view]) => {
    const owner =
      view.owner === undefined
        ? '-'
        : `${shortOwner(view.owner).padEnd(12)}${view.fencingToken ? ` token ${view.fencingToken}` : ''}${at > view.believedUntil ? '  (lapsed?)' : ''}`;
    return `  ${readableKey(key).padEnd(width)}  ${owner}`;
  });
  const events = input.events.length === 0 ? ['  (none yet)'] : input.events.map((e) => `  ${e}`);

  if (size === undefined) return [...head, ...owners, '', FAULTS_HEADING, ...events];
  const room = Math.max(0, size.rows - 1 - head.length - 2); // the blank line and the faults heading
  const shownOwners = fitOwners(owners, room - Math.min(events.length, EVENTS_KEPT));
  const shownEvents = latest(events, Math.min(EVENTS_SHOWN, room - shownOwners.length));
  const lines = [...head, ...shownOwners, '', FAULTS_HEADING, ...shownEvents];
  return lines.slice(0, Math.max(1, size.rows - 1)).map((line) => fitLine(line, Math.max(1, size.columns - 1)));
}

/** The last `n` lines (all of them when there are fewer; none for n ≤ 0). */
function latest(lines: readonly string[], n: number): readonly string[] {
  return n <= 0 ? [] : lines.slice(Math.max(0, lines.length - n));
}

/** The owners that fit in `room` lines, the last of them saying how many keys it leaves out. */
function fitOwners(owners: readonly string[], room: number): readonly string[] {
  if (owners.length <= room) return owners;
  const kept = Math.max(0, room - 1);
  return [...owners.slice(0, kept), `  +${owners.length - kept} more keys`];
}

function memberText(m: MemberView): string {
  const state = m.state === 'running' ? (m.leader ? 'leader' : 'up') : m.state;
  return `${m.name} ${state}`;
}
