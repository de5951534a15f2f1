import { describe, expect, it } from 'vitest';
import { liveFrame, type FrameInput } from './live-frame.js';
import { LiveState } from './live-state.js';
import { ownerToken } from './owner-token.js';
import { columnsOf } from './screen-fit.js';

const keys = (n: number): string[] => Array.from({ length: n }, (_, i) => `demo-user\u0000thread-${i + 1}`);

function input(keyCount: number, events: number, extra: Partial<FrameInput> = {}): FrameInput {
  const state = new LiveState(keys(keyCount));
  state.apply([
    { client: 'w1', key: keys(1)[0]!, owner: ownerToken('w1', 3), op: 'acquire', ttlMs: 6000, sentAt: 0, returnedAt: 2, outcome: 'ok', fencingToken: '1234567' },
    { client: 'w2', key: keys(1)[0]!, owner: ownerToken('w2', 1), op: 'acquire', ttlMs: 6000, sentAt: 1, returnedAt: 3, outcome: 'lost' },
    { client: 'w2', key: keys(1)[0]!, owner: ownerToken('w2', 1), op: 'renew', ttlMs: 6000, sentAt: 4, returnedAt: 900, outcome: 'error', errorCode: 'ELEASE_UNAVAILABLE' },
  ]);
  return {
    heading: 'etcd-lease demo: cluster https://etcd-0.example.internal:2379,https://etcd-1.example.internal:2379, 4 workers, 6 keys, ttl 6000 ms',
    elapsedMs: 12_300,
    durationMs: 45_000,
    stopping: undefined,
    members: [
      { name: 'm0', state: 'running', leader: true },
      { name: 'm1', state: 'paused', leader: false },
      { name: 'm2', state: 'killed', leader: false },
    ],
    state,
    at: 1000,
    events: Array.from({ length: events }, (_, i) => `[ ${i}.0 s]  fault: killed leader m0 (SIGKILL), a long note that goes past the edge of an 80-column terminal`),
    ...extra,
  };
}

const SIZE = { columns: 80, rows: 24 };

describe('liveFrame at 80×24', () => {
  it('never draws a line the terminal would wrap, nor more lines than fit without scrolling', () => {
    for (const [keyCount, events] of [[6, 0], [6, 20], [64, 20], [1, 1]] as const) {
      const lines = liveFrame(input(keyCount, events), SIZE);
      expect(lines.length).toBeLessThanOrEqual(23);
      for (const line of lines) expect(columnsOf(line)).toBeLessThanOrEqual(79);
    }
  });

  it('shows every event while there is room, then the latest ones: 0 to 25 events, 6 and 64 keys', () => {
    const eventLines = (lines: readonly string[]): string[] => lines.slice(lines.indexOf('faults injected, repairs, elections') + 1);
    for (const keyCount of [6, 64]) {
      const room = eventLines(liveFrame(input(keyCount, 25), SIZE)).length;
      expect(room).toBeGreaterThanOrEqual(3);
      for (let n = 0; n <= 25; n++) {
        const shown = eventLines(liveFrame(input(keyCount, n), SIZE));
        if (n === 0) {
          expect(shown).toEqual(['  (none yet)']);
          continue;
        }
        const expected = Array.from({ length: Math.min(n, room) }, (_, i) => n - Math.min(n, room) + i);
        expect(shown.map((line) => Number(/^ {2}\[ (\d+)\.0 s\]/.exec(line)?.[1])), `${n} events, ${keyCount} keys`).toEqual(expected);
      }
    }
  });

  it('with more keys than fit, says how many it left out and keeps the latest faults', () => {
    const lines = liveFrame(input(64, 20), SIZE);
    expect(lines.some((line) => /^ {2}\+\d+ more keys$/.test(line))).toBe(true);
    expect(lines.filter((line) => line.includes('fault: killed leader')).length).toBeGreaterThanOrEqual(3);
    expect(lines.at(-1)).toMatch(/^ {2}\[ 19\.0 s\]/);
  });

  it('reads right: counts in the right number, contention named as such, the error named, keys with \\0', () => {
    const text = liveFrame(input(6, 2), SIZE).join('\n');
    expect(text).toContain('1 error (ELEASE_UNAVAILABLE 1)');
    expect(text).toContain('contended 1 acquire: key held by another worker');
    expect(text).toContain('lost      0 leases: renew or transfer refused');
    expect(text).toMatch(/^ {2}demo-user\\0thread-1 {2}w1\/run3 +token 1234567/m);
    expect(text).toContain('m0 leader   m1 paused   m2 killed');
  });

  it('keeps the Ctrl-C message on screen once stopping', () => {
    const lines = liveFrame(input(64, 20, { stopping: 'stopping early: releasing leases' }), SIZE);
    expect(lines[1]).toContain('stopping early: releasing leases');
  });

  it('the final frame (no size) cuts nothing', () => {
    const lines = liveFrame(input(64, 20));
    expect(lines.filter((line) => line.startsWith('  demo-user'))).toHaveLength(64);
    expect(lines.filter((line) => line.includes('fault: killed'))).toHaveLength(20);
  });
});
