import type { Summary } from './stats.js';
import type { TargetCheck } from './targets.js';

export interface TableRow {
  label: string;
  /** Operations in flight at once (callers × keys per call): what the row is compared at. */
  callers: number;
  /** How the concurrency is printed, e.g. `64` or `1×64` for one caller sending 64-key batches. */
  callersLabel: string;
  summary: Summary;
  /** Comparison with the raw Txn at the same concurrency, already formatted (e.g. `1.04× p50`). */
  vsRawTxn: string;
  /** This process's CPU per operation (per key for batches), µs. */
  cpuUsPerOp: number;
  /** Provider rows: keys/s and CPU per key against the perfect minimal batch with the same keys in flight, formatted. */
  vsPerfect: string;
  /** The same against the perfect batch of the provider's own acquire shape (the second reference). */
  vsShapeBatch?: string;
}

/**
 * The comparison against the raw Txn that matters for each row: latency for a single caller (the
 * p50 target), throughput for concurrent callers (the ops/s targets).
 */
export function vsRaw(row: { callers: number; summary: Summary }, rawByCallers: ReadonlyMap<number, Summary>): string {
  const raw = rawByCallers.get(row.callers);
  if (!raw) return '';
  if (row.callers === 1) return `${fmtRatio(row.summary.p50 / raw.p50)} p50`;
  return `${fmtRatio(row.summary.opsPerSecond / raw.opsPerSecond)} ops/s`;
}

export function formatTable(rows: readonly TableRow[]): string {
  const header = ['operation', 'callers', 'ops', 'errors', 'p50 ms', 'p99 ms', 'ops/s', 'CPU µs/op', 'vs raw Txn', 'vs perfect minimal batch', 'vs perfect provider-shape batch'];
  const body = rows.map((r) => [
    r.label,
    r.callersLabel,
    String(r.summary.ops),
    String(r.summary.errors),
    fmtMs(r.summary.p50),
    fmtMs(r.summary.p99),
    fmtRate(r.summary.opsPerSecond),
    Number.isFinite(r.cpuUsPerOp) ? r.cpuUsPerOp.toFixed(1) : '—',
    r.vsRawTxn,
    r.vsPerfect,
    r.vsShapeBatch ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const text = (i: number) => i === 0 || i >= cells - 3; // label and the ratio columns are left-aligned
  const cells = header.length;
  const line = (row: string[]) => '| ' + row.map((c, i) => (text(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |';
  const rule = '|' + widths.map((w, i) => (text(i) ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|';
  return [line(header), rule, ...body.map(line)].join('\n');
}

export function formatChecks(checks: readonly TargetCheck[], asserted: boolean): string {
  const note = asserted ? '' : ' (smoke run: reported, not asserted)';
  return checks.map((c) => `${c.verdict} ${c.name}: ${c.detail}${note}`).join('\n');
}

/**
 * A provider row against a perfect batch with the same keys in flight: keys/s (≥ 0.9× the minimal one is the target)
 * and client CPU per key (≤ 1.3×).
 */
export function vsPerfect(row: { opsPerSecond: number; cpuUsPerOp: number }, perfect: { opsPerSecond: number; cpuUsPerOp: number } | undefined): string {
  if (!perfect) return '';
  return `${fmtRatio(row.opsPerSecond / perfect.opsPerSecond)} keys/s, ${fmtRatio(row.cpuUsPerOp / perfect.cpuUsPerOp)} CPU`;
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  return ms < 1 ? ms.toFixed(3) : ms < 100 ? ms.toFixed(2) : ms.toFixed(0);
}

export function fmtRate(perSecond: number): string {
  return Math.round(perSecond).toLocaleString('en-US');
}

export function fmtRatio(r: number): string {
  return Number.isFinite(r) ? `${r.toFixed(2)}×` : '—';
}
