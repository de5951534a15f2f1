import { describe, expect, it } from 'vitest';
import { deriveBeliefWindows } from '../../history/belief-windows.js';
import { findOverlaps } from '../../history/check-overlaps.js';
import { longestStall } from '../../history/stalls.js';
import { ownerToken } from './owner-token.js';
import { renderReport, type ReportInput } from './report-html.js';
import type { DemoOp } from './worker-protocol.js';

const KEY = 'user\u0000<thread>';

function input(ops: DemoOp[]): ReportInput {
  const windows = deriveBeliefWindows(ops);
  return {
    mode: 'test',
    startAt: 0,
    endAt: 3000,
    keys: [KEY],
    workers: ['w1', 'w2'],
    ttlMs: 1000,
    ops,
    windows,
    overlaps: findOverlaps(windows),
    fencingViolations: 0,
    faults: [
      { at: 500, kind: 'kill', member: 'm0', note: 'killed leader m0 (SIGKILL)' },
      { at: 1500, kind: 'restart', member: 'm0', note: 'restarted m0' },
    ],
    stall: longestStall(ops),
    summaryLine: 'summary: 2 ops, 1 faults, 0 overlaps, longest stall 0.0 s',
  };
}

const a = ownerToken('w1', 1);
const b = ownerToken('w2', 1);
const acquire = (owner: string, sentAt: number, client: string): DemoOp => ({
  client,
  key: KEY,
  owner,
  op: 'acquire',
  ttlMs: 1000,
  sentAt,
  returnedAt: sentAt + 10,
  outcome: 'ok',
  fencingToken: String(sentAt),
});

describe('renderReport', () => {
  it('is one self-contained page: inline SVG, no scripts, nothing fetched', () => {
    const html = renderReport(input([acquire(a, 0, 'w1')]));
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html).not.toMatch(/<script|\b(src|href)=|url\(/);
  });

  it('escapes keys for HTML and shows NUL as \\u0000', () => {
    const html = renderReport(input([acquire(a, 0, 'w1')]));
    expect(html).not.toContain('<thread>');
    expect(html).not.toContain('\u0000');
    expect(html).toContain('\\u0000&#60;thread&#62;');
  });

  it('draws a belief window per owner, marks faults, and outlines an overlap in red', () => {
    // Second owner acquires while the first still believes it holds the key: a violation.
    const html = renderReport(input([acquire(a, 0, 'w1'), acquire(b, 200, 'w2')]));
    expect(html).toContain('w1/run1: 0.01 s');
    expect(html).toContain('w2/run1: 0.21 s');
    expect(html).toContain('kill m0');
    expect(html).toContain('OVERLAP');
  });
});
