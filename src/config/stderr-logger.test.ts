import { afterEach, describe, expect, it, vi } from 'vitest';
import { EtcdUnavailableError } from '../errors/unavailable.js';
import { LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import { resolveOptions } from './resolve-options.js';
import { STDERR_LOGGER, warningLine } from './stderr-logger.js';

describe('the default logger', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is used when no logger is given: a warning reaches stderr as one line, debug goes nowhere', () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    const { logger } = resolveOptions({ hosts: '127.0.0.1:2379' });
    expect(logger).toBe(STDERR_LOGGER);
    expect(logger.debug).toBeUndefined();
    logger.warn?.('etcd keeps its whole history', { revisionsSinceLastCheck: '12000' });
    expect(written).toEqual(['etcd-lease-provider warn: etcd keeps its whole history (revisionsSinceLastCheck="12000")\n']);
  });

  it('a given logger replaces it entirely, even one without warn', () => {
    const mine = { warn: () => {} };
    expect(resolveOptions({ hosts: 'h', logger: mine }).logger).toBe(mine);
    expect(resolveOptions({ hosts: 'h', logger: {} }).logger).toEqual({});
  });

  it('a logger that is not an object of functions is an error naming the option', () => {
    expect(() => resolveOptions({ hosts: 'h', logger: 'console' as never })).toThrow(LeaseArgumentTypeError);
    expect(() => resolveOptions({ hosts: 'h', logger: { warn: 'yes' } as never })).toThrow(/^options\.logger\.warn/);
  });
});

describe('warningLine', () => {
  it('keeps one line whatever the fields hold: strings JSON-quoted, errors as code and message without a stack', () => {
    const error = new EtcdUnavailableError('subscribe', 3, 5000, new Error('down'));
    const line = warningLine('recovery failed', { topic: 'a\nb\u0000c', tries: 10, error, absent: undefined });
    expect(line).toBe(`etcd-lease-provider warn: recovery failed (topic="a\\nb\\u0000c", tries=10, error=${JSON.stringify(`ELEASE_UNAVAILABLE: ${error.message}`)})`);
    expect(line).not.toMatch(/\n/);
    expect(warningLine('plain')).toBe('etcd-lease-provider warn: plain');
    expect(warningLine('other', { error: new TypeError('bad') })).toBe('etcd-lease-provider warn: other (error="TypeError: bad")');
  });
});
