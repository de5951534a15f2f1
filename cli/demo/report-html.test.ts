import { describe, expect, it } from 'vitest';
import { deriveBeliefWindows } from '../../safety-checker/belief-windows.js';
import { findOverlaps } from '../../safety-checker/check-overlaps.js';
import { longestStall } from '../../safety-checker/stalls.js';
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
    summaryLine: 'summary: 2 ops, 1 fault injected, 0 overlaps, longest stall 0.0 s',
    etcdVersion: '3.4.23',
    designUrl: 'file:///pkg/docs/design.md#belief-windows',
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
    // The two charts and the two legend swatches.
    expect(html.match(/<svg /g)).toHaveLength(4);
    expect(html).not.toMatch(/<script|\bsrc=|<link\b|url\(/);
    // The one link is to the package's own design document, a local file.
    expect([...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1])).toEqual(['file:///pkg/docs/design.md#belief-windows']);
  });

  it('escapes keys for HTML and shows NUL as \\0, with a legend', () => {
    const html = renderReport(input([acquire(a, 0, 'w1')]));
    expect(html).not.toContain('<thread>');
    expect(html).not.toContain('\u0000');
    expect(html).toContain('user\\0&#60;thread&#62;');
    expect(html).toContain('a NUL byte (shown as \\0)');
  });

  it('scales its charts to the page (viewBox, width 100 %) instead of a fixed 1100 px', () => {
    const html = renderReport(input([acquire(a, 0, 'w1')]));
    expect(html).toMatch(/svg \{ display: block; width: 100%;/);
    for (const [, width] of html.matchAll(/<svg [^>]*viewBox="0 0 (\d+) \d+"/g)) expect(Number(width)).toBeLessThanOrEqual(800);
  });

  it('says which errors there were, and calls a refused answer refused, not lost', () => {
    const failed: DemoOp = { ...acquire(a, 100, 'w1'), op: 'renew', outcome: 'error', errorCode: 'ELEASE_UNAVAILABLE' };
    const refused: DemoOp = { ...acquire(b, 200, 'w2'), outcome: 'lost' };
    const html = renderReport(input([acquire(a, 0, 'w1'), failed, refused]));
    expect(html).toContain('<b>1</b>error: ELEASE_UNAVAILABLE 1 (renew 1)');
    expect(html).toContain('<b>1</b>fault injected');
    expect(html).toContain('<th>refused</th>');
    expect(html).not.toMatch(/<th>lost<\/th>|● lost/);
  });

  it('draws a belief window per owner, marks faults, and outlines an overlap in red', () => {
    // Second owner acquires while the first still believes it holds the key: a violation.
    const html = renderReport(input([acquire(a, 0, 'w1'), acquire(b, 200, 'w2')]));
    expect(html).toContain('w1/run1: 0.01 s');
    expect(html).toContain('w2/run1: 0.21 s');
    expect(html).toContain('kill m0');
    expect(html).toContain('OVERLAP');
  });

  it('names the etcd version, explains dashed lines and bars without a token, and links the design', () => {
    const html = renderReport(input([acquire(a, 0, 'w1')]));
    expect(html).toContain('etcd 3.4.23');
    expect(html).toContain('dashed: a new leader was seen');
    expect(html).toContain('a bar opened by a transfer has no token of its own');
    expect(html).toContain('<a href="file:///pkg/docs/design.md#belief-windows">');
    expect(renderReport({ ...input([]), etcdVersion: undefined })).toContain('etcd version unknown');
  });
});
