import { describe, expect, it } from 'vitest';
import { LeaseArgumentTypeError } from '../src/errors/invalid-argument.js';
import { EtcdSizeLimitError } from '../src/errors/size-limit.js';
import { EtcdUnavailableError } from '../src/errors/unavailable.js';
import { describeError } from './describe-error.js';

describe('describeError', () => {
  it('leaves out the internal operation a library message opens with (range:, acquireLease:)', () => {
    const unavailable = new EtcdUnavailableError('range', 49, 5001, new Error('down'));
    expect(unavailable.message).toMatch(/^range: /);
    expect(describeError(unavailable)).toBe('ELEASE_UNAVAILABLE: etcd unavailable after 49 attempt(s) in 5001 ms (last error: down)');
    const tooLarge = new EtcdSizeLimitError('releaseLease', 'etcd-request', undefined, undefined, undefined);
    expect(describeError(tooLarge)).toMatch(/^ELEASE_TOO_LARGE: (?!releaseLease)/);
  });

  it('keeps the parameter an argument error names: it is what the user typed', () => {
    expect(describeError(new LeaseArgumentTypeError('ETCD_ENDPOINTS', 'is wrong'))).toBe('ELEASE_INVALID_ARGUMENT: ETCD_ENDPOINTS: is wrong');
  });

  it('other errors: their name and message', () => {
    expect(describeError(new TypeError('boom'))).toBe('TypeError: boom');
    expect(describeError('text')).toBe('text');
  });
});
