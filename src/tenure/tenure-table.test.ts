import { describe, expect, it } from 'vitest';
import { TenureTable } from './tenure-table.js';

const A = Buffer.from('A');
const B = Buffer.from('B');

describe('tenure table', () => {
  it('knows the revision of its own last write per key and holder', () => {
    const t = new TenureTable();
    t.remember('k', A, '41', 10_000, 0);
    expect(t.revisionOf('k', A)).toBe('41');
    expect(t.revisionOf('k', B)).toBeUndefined();
    t.remember('k', B, '50', 10_000, 0);
    expect(t.revisionOf('k', A)).toBeUndefined();
    t.forget('k', A);
    expect(t.revisionOf('k', B)).toBe('50');
    t.forget('k', B);
    expect(t.size).toBe(0);
  });

  it('tells how long its own last write protects the key, for that holder only', () => {
    const t = new TenureTable();
    t.remember('k', A, '41', 12_345, 0);
    expect(t.protectedUntil('k', A)).toBe(12_345);
    expect(t.protectedUntil('k', B)).toBeUndefined();
    expect(t.protectedUntil('other', A)).toBeUndefined();
  });

  it('drops entries whose lease has ended once it grows, so a provider that never releases does not grow forever', () => {
    const t = new TenureTable();
    for (let i = 0; i < 5000; i++) t.remember(`k${i}`, A, '1', i, i);
    expect(t.size).toBeLessThan(2100);
  });
});

describe('tenure table: versions for refreshes', () => {
  it('knows the version (revision and lease) of its own last write for that holder, and nothing when it did not note the lease', () => {
    const t = new TenureTable();
    t.remember('k', A, '41', 10_000, 0, 10_000, '1500');
    expect(t.versionOf('k', A)).toMatchObject({ revision: '41', lease: '1500' });
    expect(t.versionOf('k', B)).toBeUndefined();
    t.remember('k', A, '45', 10_000, 0);
    expect(t.versionOf('k', A)).toBeUndefined();
    expect(t.revisionOf('k', A)).toBe('45');
  });
});
