import { describe, expect, it } from 'vitest';
import { notYours } from './release.js';

// Why `release --owner` left a lease alone, as it prints it (test/cli/commands.test.ts runs it against etcd).
describe('release --owner: why the lease was left alone', () => {
  it('another owner: names both', () => {
    expect(notYours({ owner: 'holder' }, { owner: 'impostor' })).toBe('held by "holder", not "impostor"');
  });

  it('the same owner with run metadata and no --metadata: says the metadata differs and which --metadata matches', () => {
    const text = notYours({ owner: 'run-b', metadata: 'meta-1' }, { owner: 'run-b' });
    expect(text).toBe('"run-b" holds it with run metadata "meta-1", which must match exactly, and no --metadata was given; add --metadata "meta-1"');
    expect(text).not.toMatch(/not "run-b"/);
  });

  it('the same owner with other metadata, or without metadata when --metadata was given', () => {
    expect(notYours({ owner: 'A', metadata: 'run-1' }, { owner: 'A', metadata: 'run-2' })).toContain('and --metadata "run-2" was given; add --metadata "run-1"');
    expect(notYours({ owner: 'A' }, { owner: 'A', metadata: '' })).toBe('"A" holds it without run metadata, and --metadata "" was given; run it again without --metadata');
  });
});
