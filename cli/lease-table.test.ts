import { describe, expect, it } from 'vitest';
import { LeaseTable } from './lease-table.js';

const row = (key: string, metadata?: string) => ({ key, owner: 'o', fencingToken: '12', ttlRemainingMs: 5000, ...(metadata === undefined ? {} : { metadata }) });

describe('LeaseTable', () => {
  it('prints the header once, before the first row, and aligns the columns of a page', () => {
    const table = new LeaseTable();
    const lines = table.lines([row('a'), row('a-much-longer-key')]);
    expect(lines[0]).toMatch(/^KEY\s+FENCING TOKEN\s+TTL\s+METADATA\s+OWNER$/);
    expect(lines[1]!.indexOf('12')).toBe(lines[2]!.indexOf('12'));
    expect(table.lines([row('b')])).toHaveLength(1);
  });

  it('never narrows a column on a later page', () => {
    const table = new LeaseTable();
    const [, first] = table.lines([row('a-much-longer-key')]);
    const [second] = table.lines([row('b')]);
    expect(second!.indexOf('12')).toBe(first!.indexOf('12'));
  });

  it('shows metadata as a JSON string literal with NUL escaped, and - when there is none', () => {
    const [, withMetadata, without] = new LeaseTable().lines([row('a', 'run\u00001'), row('b')]);
    expect(withMetadata).toContain('"run\\u00001"');
    expect(without).toMatch(/5s\s+-\s+"o"$/);
  });

  it('an empty page prints nothing, not even the header', () => {
    expect(new LeaseTable().lines([])).toEqual([]);
  });
});
