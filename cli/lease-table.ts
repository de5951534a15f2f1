import { quote } from './key-text.js';
import { formatTtl, type LeaseRow } from './lease-row.js';

const HEADER = ['KEY', 'FENCING TOKEN', 'TTL', 'METADATA', 'OWNER'];

/**
 * `list`'s text table, printed page by page as the pages arrive. Column widths cannot be known before the last
 * page, so each page widens them as needed and they never shrink: columns stay aligned within a page and mostly
 * across pages. Keys, owners and metadata are JSON string literals (key-text.ts), `-` for no metadata. The owner
 * column is last and never padded: owners can be long tokens.
 */
export class LeaseTable {
  private readonly widths = HEADER.map((h) => h.length);
  private headerDone = false;

  /** The lines for one page (with the header before the first). */
  lines(rows: readonly LeaseRow[]): string[] {
    const cells = rows.map((r) => [quote(r.key), r.fencingToken, formatTtl(r.ttlRemainingMs), r.metadata === undefined ? '-' : quote(r.metadata), quote(r.owner)]);
    for (const row of cells) row.forEach((cell, i) => (this.widths[i] = Math.max(this.widths[i]!, cell.length)));
    const out = cells.map((c) => this.line(c));
    if (!this.headerDone && rows.length > 0) {
      this.headerDone = true;
      out.unshift(this.line(HEADER));
    }
    return out;
  }

  private line(cells: readonly string[]): string {
    return cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(this.widths[i]!))).join('  ');
  }
}
