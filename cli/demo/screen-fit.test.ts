import { describe, expect, it } from 'vitest';
import { columnsOf, fitLine } from './screen-fit.js';

describe('columnsOf', () => {
  it('counts wide characters twice and combining marks not at all', () => {
    expect(columnsOf('demo-user\\0thread-1')).toBe(19);
    expect(columnsOf('键😀')).toBe(4);
    expect(columnsOf('e\u0301')).toBe(1);
  });
});

describe('fitLine', () => {
  it('leaves a line that fits alone and cuts a longer one to exactly the width, marked', () => {
    expect(fitLine('short', 80)).toBe('short');
    const cut = fitLine('x'.repeat(100), 80);
    expect(cut).toBe(`${'x'.repeat(79)}~`);
    expect(columnsOf(cut)).toBe(80);
  });

  it('never ends wider than the width when a wide character falls on the edge', () => {
    const cut = fitLine(`${'x'.repeat(78)}键键`, 80);
    expect(columnsOf(cut)).toBeLessThanOrEqual(80);
  });
});
