import { describe, expect, it } from 'vitest';
import { ProviderClosedError } from '../errors/closed.js';
import { LeaseArgumentRangeError } from '../errors/invalid-argument.js';
import { EtcdCore } from './etcd-core.js';

describe('EtcdCore.deadlineOf: the one deadline check of every call, leases and events alike', () => {
  // No etcd: the client connects lazily and nothing here sends a request.
  const core = new EtcdCore({ hosts: '127.0.0.1:1', deadlineMs: 3000 });

  it("a call's own deadline wins, the core's is the default", () => {
    expect(core.deadlineOf({ deadlineMs: 20 })).toBe(20);
    expect(core.deadlineOf({})).toBe(3000);
    expect(core.deadlineOf(undefined)).toBe(3000);
    core.close(new ProviderClosedError('test'));
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('deadlineMs %s is refused, naming the parameter', (deadlineMs) => {
    expect(() => core.deadlineOf({ deadlineMs })).toThrow(LeaseArgumentRangeError);
    expect(() => core.deadlineOf({ deadlineMs })).toThrow(/^deadlineMs/);
  });
});
