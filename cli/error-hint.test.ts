import { describe, expect, it } from 'vitest';
import { EtcdCompactedError } from '../src/errors/compacted.js';
import { EtcdSizeLimitError } from '../src/errors/size-limit.js';
import { EtcdUnavailableError } from '../src/errors/unavailable.js';
import { endpointsGiven, errorHint } from './error-hint.js';

const tooLargeResponse = new EtcdSizeLimitError('list', 'grpc-message', 5_000_000, 4_194_304, undefined);

describe('errorHint', () => {
  it('a read over the response limit points at the single oversized value and --page-size, not at availability', () => {
    for (const command of ['list', 'get', 'stats', 'watch']) {
      const hint = errorHint(tooLargeResponse, command);
      expect(hint).toContain('--page-size');
      expect(hint).toContain('value');
      expect(hint).not.toContain('Is etcd running');
    }
  });

  it("a release over the server's request limit points at --max-request-bytes", () => {
    expect(errorHint(new EtcdSizeLimitError('releaseLease', 'etcd-request', undefined, undefined, undefined), 'release')).toContain('--max-request-bytes');
    expect(errorHint(tooLargeResponse, 'release')).toContain('--max-request-bytes');
  });

  it('unavailable asks whether etcd runs where --endpoints points; a compacted snapshot says to run again', () => {
    expect(errorHint(new EtcdUnavailableError('list', 3, 5000, undefined), 'list')).toContain('--endpoints');
    expect(errorHint(new EtcdCompactedError('list', '42', undefined), 'list')).toContain('run the command again');
  });

  it('the unreachable hint names the endpoints the user gave, and the default only when none was given', () => {
    const unavailable = new EtcdUnavailableError('range', 3, 5000, undefined);
    const flag = errorHint(unavailable, 'list', endpointsGiven(['list', '--endpoints', 'etcd-0:2379,etcd-1:2379'], {}));
    expect(flag).toBe('Is etcd running at etcd-0:2379,etcd-1:2379 (from --endpoints)?');
    expect(errorHint(unavailable, 'get', endpointsGiven(['get', 'k', '--endpoints=e:1'], { ETCD_ENDPOINTS: 'f:2' }))).toBe('Is etcd running at e:1 (from --endpoints)?');
    expect(errorHint(unavailable, 'list', endpointsGiven(['list'], { ETCD_ENDPOINTS: 'f:2' }))).toBe('Is etcd running at f:2 (from ETCD_ENDPOINTS)?');
    const byDefault = errorHint(unavailable, 'list', endpointsGiven(['list'], { ETCD_ENDPOINTS: '' }));
    expect(byDefault).toContain('127.0.0.1:2379 (the default)');
    expect(byDefault).toContain('--endpoints or ETCD_ENDPOINTS');
  });

  it('other errors get no hint', () => {
    expect(errorHint(new Error('boom'), 'list')).toBe('');
  });
});
