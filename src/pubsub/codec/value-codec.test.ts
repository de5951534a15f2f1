import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CODEC_TAG, decodeValue, encodeValue } from './value-codec.js';

const roundTrip = (value: unknown) => decodeValue(JSON.parse(JSON.stringify(encodeValue(value))));

describe('value codec', () => {
  it('keeps what JSON loses: Date, Map, Set, BigInt, URL, RegExp, undefined', () => {
    const value = {
      at: new Date('2026-01-02T03:04:05.678Z'),
      map: new Map<unknown, unknown>([['a', 1], [2, new Date(0)]]),
      set: new Set([1, 'x']),
      big: 12345678901234567890n,
      url: new URL('https://example.test/a?b=1'),
      re: /a+b/gi,
      missing: undefined,
      list: [undefined, 1],
    };
    const back = roundTrip(value) as typeof value;
    expect(back).toEqual(value);
    expect(back.at).toBeInstanceOf(Date);
    expect('missing' in back).toBe(true);
  });

  it('keeps an Error with its name, message, stack, cause and own fields (JSON would give {})', () => {
    const cause = new Error('root');
    const error = Object.assign(new TypeError('boom', { cause }), { code: 'E_X', details: { n: 1 } });
    const back = roundTrip({ error }) as { error: Error & { code: string; details: unknown } };
    expect(back.error).toBeInstanceOf(Error);
    expect(back.error.message).toBe('boom');
    expect(back.error.name).toBe('TypeError');
    expect(back.error.stack).toBe(error.stack);
    expect(back.error.code).toBe('E_X');
    expect(back.error.details).toEqual({ n: 1 });
    expect((back.error.cause as Error).message).toBe('root');
  });

  it('cuts cycles, encodes shared objects twice, drops functions, turns NaN into null', () => {
    const shared = { s: 1 };
    const cyclic: Record<string, unknown> = { a: shared, b: shared, f: () => 1, n: Number.NaN };
    cyclic.self = cyclic;
    expect(roundTrip(cyclic)).toEqual({ a: { s: 1 }, b: { s: 1 }, n: null, self: null });
    expect(roundTrip([() => 1, Symbol('x')])).toEqual([null, null]);
  });

  it('honours toJSON', () => {
    expect(roundTrip({ x: { toJSON: () => 'custom' } })).toEqual({ x: 'custom' });
  });

  it('returns a caller object that carries the tag key exactly as it was, not as an envelope', () => {
    const trap = { [CODEC_TAG]: 'Date', v: '2020-01-01T00:00:00.000Z' };
    expect(roundTrip({ trap })).toEqual({ trap });
    expect((roundTrip({ trap }) as { trap: unknown }).trap).not.toBeInstanceOf(Date);
  });

  it('never lets a key from the wire become a prototype, nor a sender-named class be instantiated', () => {
    const decoded = decodeValue(JSON.parse('{"__proto__":{"polluted":true},"e":{"__m_codec__":"Error","v":{"name":"Evil","message":"m"}}}')) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(decoded.e)).toBe(Error.prototype);
  });

  it('round-trips any JSON value unchanged', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(roundTrip(value)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
