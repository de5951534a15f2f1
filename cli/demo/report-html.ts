import type { BeliefWindow, OverlapViolation, Stall } from '../../safety-checker/types.js';
import { NUL_SHOWN, readableKey } from '../key-text.js';
import { count } from './count-words.js';
import { isInjected, type FaultEvent } from './fault-plan.js';
import { shortOwner, workerOf } from './owner-token.js';
import type { DemoOp } from './worker-protocol.js';

export interface ReportInput {
  readonly mode: string;
  readonly startAt: number;
  readonly endAt: number;
  readonly keys: readonly string[];
  readonly workers: readonly string[];
  readonly ttlMs: number;
  readonly ops: readonly DemoOp[];
  readonly windows: readonly BeliefWindow[];
  readonly overlaps: readonly OverlapViolation[];
  readonly fencingViolations: number;
  readonly faults: readonly FaultEvent[];
  readonly stall: Stall;
  readonly summaryLine: string;
  /** The etcd server's version, as a member reported it; undefined when none answered the question. */
  readonly etcdVersion?: string | undefined;
  /** A link to the design's section on belief windows: the package's own docs/design.md, as a file URL. */
  readonly designUrl: string;
}

/**
 * The charts' own coordinate system. They scale to the page's width (viewBox, width 100 %): drawn for a laptop
 * window of about 800 px, so their 11 px labels stay 11 px there, larger on a wide screen up to 1.5×, smaller only
 * on a narrower one.
 */
const WIDTH = 760;
const MAX_SCALE = 1.5;
const LABEL = 150;
const PLOT = WIDTH - LABEL - 20;
const ROW = 24;
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#bab0ac', '#e15759', '#ff9da7'];
const OUTCOME_COLOUR = { ok: '#2e7d32', lost: '#9e9e9e', error: '#d32f2f' } as const;
/** What a refused answer (`lost` in the history) means per operation: contention for an acquire, a real loss otherwise. */
const REFUSED_MEANS = 'etcd answered that another owner holds the key: for an acquire, contention (another worker held it, as expected with several workers on few keys); for a renew or transfer, the lease had ended or passed on';
const FAULT_COLOUR: Record<FaultEvent['kind'], string> = {
  kill: '#d32f2f',
  pause: '#ef6c00',
  restart: '#2e7d32',
  resume: '#2e7d32',
  elected: '#757575',
};

/** The fencing token of a window: its last grant's that carried one; a window opened by a transfer may have none. */
function tokenText(w: BeliefWindow): string {
  const token = [...w.grants].reverse().find((g) => g.fencingToken !== undefined)?.fencingToken;
  return token === undefined ? 'no fencing token (taken by a transfer)' : `fencing token ${token}`;
}

/** A self-contained page (inline SVG and CSS, no scripts, no external assets) describing one demo run. */
export function renderReport(input: ReportInput): string {
  const span = Math.max(1, input.endAt - input.startAt);
  const x = (t: number): number => LABEL + ((t - input.startAt) / span) * PLOT;
  const colourOf = (owner: string): string => {
    const index = input.workers.indexOf(workerOf(owner) ?? '');
    return index < 0 ? '#555' : (PALETTE[index % PALETTE.length] as string);
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>etcd-lease demo report</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: ${WIDTH * MAX_SCALE}px; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
.figures { display: flex; gap: 12px; flex-wrap: wrap; }
.figure { border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 110px; }
.figure b { display: block; font-size: 22px; }
.bad b { color: #d32f2f; } .good b { color: #2e7d32; }
code, pre { font-family: ui-monospace, monospace; }
table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
svg { display: block; width: 100%; max-width: ${WIDTH * MAX_SCALE}px; height: auto; }
svg text { font: 11px ui-monospace, monospace; }
.note { color: #555; }
.legend span { display: inline-block; margin-right: 14px; }
.swatch { display: inline-block; width: 12px; height: 12px; vertical-align: middle; margin-right: 4px; }
</style>
</head>
<body>
<h1>etcd-lease demo</h1>
<p>${esc(input.mode)} · etcd ${esc(input.etcdVersion ?? 'version unknown')} · ${count(input.workers.length, 'worker process', 'worker processes')} · ${count(input.keys.length, 'thread key')} · TTL ${input.ttlMs} ms, renewed every ${Math.round(input.ttlMs / 3)} ms · ${(span / 1000).toFixed(1)} s</p>
<pre>${esc(input.summaryLine)}</pre>
${figures(input)}
<h2>Ownership per key</h2>
<p>Each bar is a belief window (<a href="${esc(input.designUrl)}">belief windows in docs/design.md</a>): from the moment an acquire or transfer returned success to its holder
until the holder released, handed over, heard it had lost, or (send time of its last successful renew) + TTL passed.
Bars of different owners on one row must never overlap; overlaps would be drawn in red. Shaded bands: a member down or paused.
The yellow band is the longest stall (no operation succeeded). Keys are Mastra's thread keys: resourceId, a NUL byte (shown as ${NUL_SHOWN}), threadId.</p>
<p class="legend"><span><svg width="24" height="12" style="display:inline;width:24px"><line x1="12" x2="12" y1="0" y2="12" stroke="${FAULT_COLOUR.kill}"/></svg> a fault (labelled) or its repair</span><span><svg width="24" height="12" style="display:inline;width:24px"><line x1="12" x2="12" y1="0" y2="12" stroke="${FAULT_COLOUR.elected}" stroke-dasharray="3,3"/></svg> dashed: a new leader was seen</span><span>hover a bar for its owner, times and fencing token; a bar opened by a transfer has no token of its own (a transfer answers only true or false)</span></p>
${legend(input.workers)}
${timeline(input, x, colourOf)}
<h2>Latency over time</h2>
<p>One dot per operation, at the time it was sent; height = time until it returned (log scale).
<span style="color:${OUTCOME_COLOUR.ok}">● ok</span> <span style="color:${OUTCOME_COLOUR.lost}">● refused (another owner holds the key: contention, or a lease that had ended)</span> <span style="color:${OUTCOME_COLOUR.error}">● error (etcd unavailable within the deadline)</span></p>
${latency(input, x)}
<h2>Faults</h2>
${faultTable(input)}
<h2>Operations</h2>
${opsTable(input.ops)}
<p class="note">refused: ${esc(REFUSED_MEANS)}. error: no answer from etcd within the deadline (or another failure, by its code); the call claimed nothing.</p>
</body>
</html>
`;
}

function figures(input: ReportInput): string {
  const latencies = input.ops.map((op) => op.returnedAt - op.sentAt).sort((a, b) => a - b);
  const failed = input.ops.filter((op) => op.outcome === 'error');
  const injected = input.faults.filter(isInjected).length;
  const card = (value: string, label: string, tone = ''): string => `<div class="figure ${tone}"><b>${esc(value)}</b>${esc(label)}</div>`;
  const noun = (n: number, singular: string, plural = `${singular}s`): string => (n === 1 ? singular : plural);
  return `<div class="figures">
${card(String(input.ops.length), noun(input.ops.length, 'operation'))}
${card(String(injected), noun(injected, 'fault injected', 'faults injected'))}
${card(String(input.overlaps.length), noun(input.overlaps.length, 'overlap'), input.overlaps.length === 0 ? 'good' : 'bad')}
${card(String(input.fencingViolations), noun(input.fencingViolations, 'fencing violation'), input.fencingViolations === 0 ? 'good' : 'bad')}
${card(`${(input.stall.durationMs / 1000).toFixed(1)} s`, 'longest stall')}
${card(String(failed.length), failed.length === 0 ? 'errors' : `${noun(failed.length, 'error')}: ${errorCodes(failed)}`)}
${card(`${percentile(latencies, 0.5).toFixed(1)} ms`, 'latency p50')}
${card(`${percentile(latencies, 0.99).toFixed(1)} ms`, 'latency p99')}
</div>`;
}

/** `ELEASE_UNAVAILABLE 3 (renew 2, acquire 1)`: which errors, how many, on which operations. */
function errorCodes(failed: readonly DemoOp[]): string {
  const byCode = new Map<string, Map<string, number>>();
  for (const op of failed) {
    const code = op.errorCode ?? 'unknown error';
    const ops = byCode.get(code) ?? new Map<string, number>();
    ops.set(op.op, (ops.get(op.op) ?? 0) + 1);
    byCode.set(code, ops);
  }
  return [...byCode]
    .map(([code, ops]) => `${code} ${[...ops.values()].reduce((a, b) => a + b, 0)} (${[...ops].map(([op, n]) => `${op} ${n}`).join(', ')})`)
    .join('; ');
}

function legend(workers: readonly string[]): string {
  return `<p class="legend">${workers
    .map((w, i) => `<span><i class="swatch" style="background:${PALETTE[i % PALETTE.length]}"></i>${esc(w)}</span>`)
    .join('')}</p>`;
}

function timeline(input: ReportInput, x: (t: number) => number, colourOf: (owner: string) => string): string {
  const top = 30;
  const height = top + input.keys.length * ROW + 30;
  const rowOf = new Map(input.keys.map((k, i) => [k, i]));
  const parts: string[] = [frame(input, x, top, height - 30)];
  parts.push(`<rect x="${x(input.stall.start).toFixed(1)}" y="${top}" width="${Math.max(1, x(input.stall.end) - x(input.stall.start)).toFixed(1)}" height="${height - top - 30}" fill="#fff59d" opacity="0.6"><title>longest stall: ${(input.stall.durationMs / 1000).toFixed(2)} s</title></rect>`);
  input.keys.forEach((key, i) => {
    const y = top + i * ROW;
    parts.push(`<text x="4" y="${y + 16}">${esc(truncate(readableKey(key), 20))}<title>${esc(readableKey(key))}</title></text>`);
    parts.push(`<line x1="${LABEL}" x2="${LABEL + PLOT}" y1="${y + ROW}" y2="${y + ROW}" stroke="#eee"/>`);
  });
  for (const w of input.windows) {
    const row = rowOf.get(w.key);
    if (row === undefined) continue;
    const x1 = x(w.start);
    const width = Math.max(1, x(w.end) - x1);
    parts.push(
      `<rect x="${x1.toFixed(1)}" y="${top + row * ROW + 4}" width="${width.toFixed(1)}" height="${ROW - 8}" fill="${colourOf(w.owner)}" rx="2"><title>${esc(`${shortOwner(w.owner)}: ${rel(input, w.start)}–${rel(input, w.end)} (ended by ${w.endedBy}); ${tokenText(w)}`)}</title></rect>`,
    );
  }
  for (const o of input.overlaps) {
    const row = rowOf.get(o.key);
    if (row === undefined) continue;
    const start = Math.max(o.first.start, o.second.start);
    parts.push(
      `<rect x="${x(start).toFixed(1)}" y="${top + row * ROW}" width="${Math.max(2, x(start + o.overlapMs) - x(start)).toFixed(1)}" height="${ROW}" fill="none" stroke="#d32f2f" stroke-width="2"><title>${esc(`OVERLAP ${o.overlapMs.toFixed(1)} ms: ${shortOwner(o.first.owner)} and ${shortOwner(o.second.owner)}`)}</title></rect>`,
    );
  }
  return svg(height, parts);
}

function latency(input: ReportInput, x: (t: number) => number): string {
  const top = 30;
  const plotHeight = 220;
  const height = top + plotHeight + 30;
  const maxMs = Math.max(10, ...input.ops.map((op) => op.returnedAt - op.sentAt));
  const decades = Math.ceil(Math.log10(maxMs));
  // log scale from 0.1 ms: loopback etcd answers in about a millisecond, failovers take seconds.
  const y = (ms: number): number => top + plotHeight - ((Math.log10(Math.max(ms, 0.1)) + 1) / (decades + 1)) * plotHeight;
  const parts: string[] = [frame(input, x, top, top + plotHeight)];
  for (let d = -1; d <= decades; d++) {
    const ms = 10 ** d;
    parts.push(`<line x1="${LABEL}" x2="${LABEL + PLOT}" y1="${y(ms).toFixed(1)}" y2="${y(ms).toFixed(1)}" stroke="#eee"/>`);
    parts.push(`<text x="${LABEL - 6}" y="${(y(ms) + 4).toFixed(1)}" text-anchor="end">${ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`}</text>`);
  }
  for (const op of input.ops) {
    parts.push(`<circle cx="${x(op.sentAt).toFixed(1)}" cy="${y(op.returnedAt - op.sentAt).toFixed(1)}" r="1.6" fill="${OUTCOME_COLOUR[op.outcome]}"/>`);
  }
  return svg(height, parts);
}

/** Fault bands and markers plus the time axis, shared by both plots. */
function frame(input: ReportInput, x: (t: number) => number, top: number, bottom: number): string {
  const parts: string[] = [];
  for (const [fault, repair] of faultSpans(input.faults)) {
    const end = repair?.at ?? input.endAt;
    parts.push(`<rect x="${x(fault.at).toFixed(1)}" y="${top}" width="${Math.max(1, x(end) - x(fault.at)).toFixed(1)}" height="${bottom - top}" fill="${FAULT_COLOUR[fault.kind]}" opacity="0.08"/>`);
  }
  for (const f of input.faults) {
    const fx = x(f.at).toFixed(1);
    const dash = f.kind === 'elected' ? ' stroke-dasharray="3,3"' : '';
    parts.push(`<line x1="${fx}" x2="${fx}" y1="${top - 4}" y2="${bottom}" stroke="${FAULT_COLOUR[f.kind]}"${dash}><title>${esc(`${rel(input, f.at)} ${f.note}`)}</title></line>`);
    if (f.kind !== 'elected') parts.push(`<text x="${fx}" y="${top - 8}" text-anchor="middle" fill="${FAULT_COLOUR[f.kind]}">${esc(`${f.kind} ${f.member}`)}</text>`);
  }
  const span = (input.endAt - input.startAt) / 1000;
  const step = span > 60 ? 10 : span > 20 ? 5 : span > 8 ? 2 : 1;
  for (let s = 0; s <= span; s += step) {
    const tx = x(input.startAt + s * 1000).toFixed(1);
    parts.push(`<line x1="${tx}" x2="${tx}" y1="${bottom}" y2="${bottom + 4}" stroke="#999"/><text x="${tx}" y="${bottom + 16}" text-anchor="middle">${s} s</text>`);
  }
  parts.push(`<line x1="${LABEL}" x2="${LABEL + PLOT}" y1="${bottom}" y2="${bottom}" stroke="#999"/>`);
  return parts.join('\n');
}

/** Each injected fault with the event that repaired it (restart after kill, resume after pause), if any. */
function faultSpans(faults: readonly FaultEvent[]): [FaultEvent, FaultEvent | undefined][] {
  return faults.filter(isInjected).map((fault) => {
    const repairKind = fault.kind === 'kill' ? 'restart' : 'resume';
    return [fault, faults.find((f) => f.kind === repairKind && f.member === fault.member && f.at >= fault.at)];
  });
}

function faultTable(input: ReportInput): string {
  if (input.faults.length === 0) return '<p>No faults were injected (external cluster: nothing is killed).</p>';
  const rows = input.faults.map((f) => `<tr><td>${rel(input, f.at)}</td><td>${esc(f.kind)}</td><td>${esc(f.member)}</td><td>${esc(f.note)}</td></tr>`);
  return `<table><tr><th>time</th><th>event</th><th>member</th><th>what happened</th></tr>${rows.join('')}</table>`;
}

function opsTable(ops: readonly DemoOp[]): string {
  const kinds = ['acquire', 'renew', 'transfer', 'release'] as const;
  const outcomes = [
    ['ok', 'ok'],
    ['lost', 'refused'],
    ['error', 'error'],
  ] as const;
  const tally = (kind: string, outcome: string): number => ops.filter((op) => op.op === kind && op.outcome === outcome).length;
  const rows = kinds.map((k) => `<tr><td>${k}</td>${outcomes.map(([o]) => `<td>${tally(k, o)}</td>`).join('')}</tr>`);
  return `<table><tr><th>operation</th>${outcomes.map(([, heading]) => `<th>${heading}</th>`).join('')}</tr>${rows.join('')}</table>`;
}

function svg(height: number, parts: string[]): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">\n${parts.join('\n')}\n</svg>`;
}

function rel(input: ReportInput, t: number): string {
  return `${((t - input.startAt) / 1000).toFixed(2)} s`;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
