import { fmtMs } from '../report.js';
import type { HoldResult } from './measure-hold.js';

/**
 * The hold-cost table: what holding N leases on Mastra's cadence costs each design, per configuration.
 * Proposals per 1000 leases and per renewal are the figures the targets are stated in.
 */
export function formatHoldTable(results: readonly HoldResult[]): string {
  const header = ['design', 'leases', 'TTL s', 'renews/s', 'proposals/s', 'per 1000 leases', 'per renew', 'etcd CPU', 'client CPU', 'renew p50 ms', 'p99 ms', 'failed'];
  const na = '—';
  const body = results.map((r) => {
    if (r.error !== undefined) return [r.label, String(r.keys), String(r.ttlMs / 1000), `could not hold: ${r.error.slice(0, 60)}`, '', '', '', '', '', '', '', ''];
    const p = r.proposalsPerSecond;
    return [
      r.label,
      String(r.keys),
      String(r.ttlMs / 1000),
      r.renewsPerSecond.toFixed(0),
      p === undefined ? na : p.toFixed(1),
      p === undefined ? na : ((p * 1000) / r.keys).toFixed(1),
      p === undefined || r.renewsPerSecond === 0 ? na : (p / r.renewsPerSecond).toFixed(3),
      r.memberCores === undefined ? na : `${(r.memberCores * 100).toFixed(0)} %`,
      `${(r.clientCores * 100).toFixed(0)} %`,
      fmtMs(r.renewP50Ms),
      fmtMs(r.renewP99Ms),
      String(r.failures),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |';
  const rule = '|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|';
  return [line(header), rule, ...body.map(line)].join('\n');
}
