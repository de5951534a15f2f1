import { describe, expect, it } from 'vitest';
import { ProviderClosedError } from '../errors/closed.js';
import { errorType } from './error-type.js';

describe('errorType', () => {
  it("is a package error's code, another error's class name, else _OTHER: never a message", () => {
    expect(errorType(new ProviderClosedError('acquire'))).toBe('ELEASE_CLOSED');
    expect(errorType(new RangeError('key 42 is too long'))).toBe('RangeError');
    const odd = new Error('x');
    odd.name = 'failed for user 42: timeout';
    expect(errorType(odd)).toBe('_OTHER');
    expect(errorType('a string')).toBe('_OTHER');
  });
});
