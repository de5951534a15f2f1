import { describe, expect, it } from 'vitest';
import { keyAfter, prefixEnd } from './key-range.js';

const hex = (b: Buffer): string => b.toString('hex');

describe('prefixEnd', () => {
  it('increments the last byte: every key with the prefix sorts below the end, the next prefix does not', () => {
    expect(prefixEnd(Buffer.from('a/'))).toEqual(Buffer.from('a0'));
    const end = prefixEnd(Buffer.from('mastra/lease/'));
    expect(Buffer.compare(Buffer.from('mastra/lease/\u{10FFFF}\u{10FFFF}'), end)).toBe(-1);
    expect(Buffer.compare(Buffer.from('mastra/lease0'), end)).toBe(0);
  });

  it('drops trailing 0xFF bytes before incrementing', () => {
    expect(hex(prefixEnd(Buffer.from([0x61, 0xff, 0xff])))).toBe('62');
  });

  it('a prefix of only 0xFF bytes ranges to the end of the keyspace (\\0)', () => {
    expect(hex(prefixEnd(Buffer.from([0xff, 0xff])))).toBe('00');
  });

  it('never changes the prefix it is given', () => {
    const prefix = Buffer.from('p/');
    prefixEnd(prefix);
    expect(prefix.toString()).toBe('p/');
  });
});

describe('keyAfter', () => {
  it('is the smallest key above the given one: nothing fits between', () => {
    const key = Buffer.from('p/a');
    const after = keyAfter(key);
    expect(Buffer.compare(key, after)).toBe(-1);
    expect(Buffer.compare(after, Buffer.from('p/a\u0001'))).toBe(-1);
    expect(hex(after)).toBe(`${hex(key)}00`);
  });
});
