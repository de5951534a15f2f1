import { describe, expect, it } from 'vitest';
import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import { resolveOptions } from '../config/resolve-options.js';
import { MAX_ENTRY_BYTES, checkEntrySize, checkText, decodeKey, encodeKey } from './key-codec.js';
import { MAX_TTL_MS, checkTtl } from './ttl.js';

describe('key and owner validation', () => {
  it.each([
    ['empty', ''],
    ['number', 42],
    ['undefined', undefined],
    ['null', null],
    ['object', {}],
  ])('rejects a %s key with a TypeError naming the parameter', (_, value) => {
    expect(() => checkText('key', value)).toThrow(LeaseArgumentTypeError);
    expect(() => checkText('key', value)).toThrow(/^key: /);
  });

  it('rejects lone surrogates, which UTF-8 would alias to U+FFFD', () => {
    expect(Buffer.from('a\uD800').equals(Buffer.from('a\uDBFF'))).toBe(true); // the aliasing we prevent
    expect(() => checkText('owner', 'a\uD800')).toThrow(/lone UTF-16 surrogate/);
  });

  it('keeps NUL bytes and unicode verbatim, so "a" and "a\\u0000b" are different keys', () => {
    const prefix = Buffer.from('p/');
    for (const key of ['a', 'a\u0000b', 'résumé/线程/🧵', '\u0000']) {
      expect(decodeKey(prefix, encodeKey(prefix, key))).toBe(key);
    }
    expect(encodeKey(prefix, 'a').equals(encodeKey(prefix, 'a\u0000b'))).toBe(false);
  });

  it('rejects entries larger than one request may carry', () => {
    expect(() => checkEntrySize(Buffer.alloc(MAX_ENTRY_BYTES + 1), [])).toThrow(LeaseArgumentRangeError);
    expect(() => checkEntrySize(Buffer.alloc(10), ['x'.repeat(MAX_ENTRY_BYTES)])).toThrow(/^key: /);
  });
});

describe('ttl validation', () => {
  it.each([0, -1, NaN, Infinity, -Infinity, 9e15])('rejects ttlMs=%s with a RangeError naming ttlMs', (ttl) => {
    expect(() => checkTtl(ttl)).toThrow(LeaseArgumentRangeError);
    expect(() => checkTtl(ttl)).toThrow(/^ttlMs: /);
  });

  it("refuses a ttl whose pooled lease (ttl + bucket, whole seconds) would pass etcd's largest lease TTL", () => {
    expect(() => checkTtl(MAX_TTL_MS - 999, 1000)).toThrow(/^ttlMs: too large/);
    expect(() => checkTtl(MAX_TTL_MS - 1000, 1000)).not.toThrow();
    expect(() => checkTtl(MAX_TTL_MS, 0)).not.toThrow();
  });

  it('rejects a non-number ttl with a TypeError', () => {
    expect(() => checkTtl('15000')).toThrow(LeaseArgumentTypeError);
  });

  it('accepts fractions and tiny values (rounded up by etcd to its minimum)', () => {
    expect(() => checkTtl(0.5)).not.toThrow();
    expect(() => checkTtl(15_000)).not.toThrow();
  });
});

describe('constructor options', () => {
  it('requires exactly one of hosts and client', () => {
    expect(() => resolveOptions({})).toThrow(/options.hosts/);
    expect(() => resolveOptions({ hosts: [] })).toThrow(/options.hosts/);
  });

  it('names the bad option', () => {
    expect(() => resolveOptions({ hosts: 'h:1', deadlineMs: -5 })).toThrow(/options.deadlineMs/);
    expect(() => resolveOptions({ hosts: 'h:1', prefix: '' })).toThrow(/options.prefix/);
    expect(() => resolveOptions({ hosts: 'h:1', readConsistency: 'eventual' as never })).toThrow(/options.readConsistency/);
  });

  it('applies documented defaults', () => {
    expect(resolveOptions({ hosts: 'a:1, b:2' })).toMatchObject({
      hosts: ['a:1', 'b:2'],
      prefix: 'mastra/lease/',
      deadlineMs: 5000,
      attemptTimeoutMs: 500,
    });
  });
});
