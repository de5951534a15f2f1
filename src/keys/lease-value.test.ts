import { describe, expect, it } from 'vitest';
import { decodeLeaseValue, encodeLeaseValue } from './lease-value.js';

describe('lease value', () => {
  it('stores an owner without metadata as its plain UTF-8 bytes, as earlier versions did', () => {
    expect(encodeLeaseValue('run-1')).toEqual(Buffer.from('run-1'));
    expect(decodeLeaseValue(Buffer.from('run-1'))).toEqual({ owner: 'run-1' });
  });

  it('round-trips owner and metadata byte-exactly, NUL and unicode included', () => {
    for (const [owner, metadata] of [
      ['mastra:agent-thread:v2:src:abc', 'run-\u0000-é-😀'],
      ['o\u0000wner', ''],
      ['\u00ff', '\u00ff\u00ff'],
    ] as const) {
      const bytes = encodeLeaseValue(owner, metadata);
      expect(decodeLeaseValue(bytes)).toEqual({ owner, metadata });
    }
  });

  it('keeps no metadata, empty metadata and other metadata apart', () => {
    const values = [encodeLeaseValue('a'), encodeLeaseValue('a', ''), encodeLeaseValue('a', 'r1'), encodeLeaseValue('a', 'r2')];
    for (let i = 0; i < values.length; i++) for (let j = i + 1; j < values.length; j++) expect(values[i]!.equals(values[j]!)).toBe(false);
  });

  it('never reads an owner that looks like JSON or like an envelope as metadata', () => {
    const json = '{"owner":"parsed-owner","metadata":"parsed-run"}';
    expect(decodeLeaseValue(Buffer.from(json))).toEqual({ owner: json });
    // no well-formed string encodes to bytes starting with 0xFF
    const lookalike = '\u00ff\u0001\u0000\u0000\u0000\u0001ab';
    expect(Buffer.from(lookalike, 'utf8')[0]).not.toBe(0xff);
    expect(decodeLeaseValue(Buffer.from(lookalike, 'utf8'))).toEqual({ owner: lookalike });
  });

  it('shows bytes of another program that start with 0xFF literally, never half-parsed', () => {
    const odd = Buffer.from([0xff, 0x01, 0, 0, 0, 99, 0x61]);
    expect(decodeLeaseValue(odd)).toEqual({ owner: odd.toString('utf8') });
  });
});
