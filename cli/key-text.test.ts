import { describe, expect, it } from 'vitest';
import { escapedKeyGuess, parseTextArg, quote, readableKey, shellWord } from './key-text.js';
import { UsageError } from './usage-error.js';

describe('quote', () => {
  it('shows NUL and other control bytes as escapes, never raw', () => {
    expect(quote('user\u0000thread')).toBe('"user\\u0000thread"');
    expect(quote('a\nb\u001b[2J')).toBe('"a\\nb\\u001b[2J"');
  });

  it('escapes C1 controls, line separators and bidi overrides that JSON.stringify leaves raw', () => {
    const text = 'x\u009b31my\u2028z\u202eevil';
    const quoted = quote(text);
    expect(quoted).toBe('"x\\u009b31my\\u2028z\\u202eevil"');
    expect(/[\u0080-\u009f\u2028\u202e]/.test(quoted)).toBe(false);
  });

  it('round-trips through parseTextArg: a printed key can be pasted back', () => {
    for (const text of ['user\u0000thread', 'ключ', '"quoted"', 'x\u009by', '😀 emoji']) {
      expect(parseTextArg('KEY', quote(text))).toBe(text);
    }
  });
});

describe('parseTextArg', () => {
  it('takes an unquoted argument literally', () => {
    expect(parseTextArg('KEY', 'thread-1')).toBe('thread-1');
    expect(parseTextArg('KEY', 'a\\u0000b')).toBe('a\\u0000b');
  });

  it('rejects an empty key and a broken JSON literal as usage errors', () => {
    expect(() => parseTextArg('KEY', '')).toThrow(UsageError);
    expect(() => parseTextArg('KEY', '"x')).not.toThrow(); // not a JSON literal: taken as it is
    expect(() => parseTextArg('KEY', '"\\x"')).toThrow(UsageError);
    expect(() => parseTextArg('KEY', '"\\x"')).toThrow(/KEY: looks JSON-quoted/);
    expect(() => parseTextArg('KEY', '""')).toThrow(/must not be empty/);
  });

  it('accepts an empty value where one is allowed (run metadata), given bare or JSON-quoted', () => {
    expect(parseTextArg('--metadata', '', { allowEmpty: true })).toBe('');
    expect(parseTextArg('--metadata', '""', { allowEmpty: true })).toBe('');
    expect(parseTextArg('--metadata', '"run\\u00001"', { allowEmpty: true })).toBe('run\u00001');
  });
});

describe('escapedKeyGuess', () => {
  it('decodes an unquoted argument that holds JSON escapes: the key a user typing \\u0000 meant', () => {
    expect(escapedKeyGuess('user-1\\u0000thread-4')).toBe('user-1\u0000thread-4');
    expect(escapedKeyGuess('a\\tb')).toBe('a\tb');
  });

  it('has no guess without an escape, for a JSON-quoted argument, or when the argument does not decode', () => {
    expect(escapedKeyGuess('thread-1')).toBeUndefined();
    expect(escapedKeyGuess('"a\\u0000b"')).toBeUndefined();
    expect(escapedKeyGuess('C:\\x')).toBeUndefined();
    expect(escapedKeyGuess('a"\\u0000')).toBeUndefined();
  });
});

describe('shellWord', () => {
  it('leaves plain words alone and single-quotes the rest, single quotes included', () => {
    expect(shellWord('thread-1')).toBe('thread-1');
    expect(shellWord('"a\\u0000b"')).toBe(`'"a\\u0000b"'`);
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
  });
});

describe('readableKey', () => {
  it('shows a NUL as \\0 in a key that is otherwise plain text', () => {
    expect(readableKey('demo-user\u0000thread-1')).toBe('demo-user\\0thread-1');
    expect(readableKey('ключ 😀')).toBe('ключ 😀');
  });

  it('falls back to the JSON-quoted form whenever the plain one could be misread', () => {
    expect(readableKey('a\\0b')).toBe('"a\\\\0b"'); // a backslash of its own would read as a NUL
    expect(readableKey('a\u0000"b"')).toBe('"a\\u0000\\"b\\""');
    expect(readableKey('a\nb\u0000c')).toBe('"a\\nb\\u0000c"');
    expect(readableKey('x\u202ey')).toBe('"x\\u202ey"');
  });

  it('what it shows, typed back as an argument, is the key escapedKeyGuess finds', () => {
    expect(escapedKeyGuess(readableKey('demo-user\u0000thread-1'))).toBe('demo-user\u0000thread-1');
    expect(escapedKeyGuess('a\\\\0b')).toBe('a\\0b'); // an escaped backslash, then a plain 0
  });
});
