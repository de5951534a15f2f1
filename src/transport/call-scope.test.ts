import { describe, expect, it } from 'vitest';
import { EtcdUnavailableError } from '../errors/unavailable.js';
import { ProviderClosedError } from '../errors/closed.js';
import { LeaseAbortedError } from '../errors/aborted.js';
import { CallScope, OpenScopes } from './call-scope.js';
import { untilStopped } from './stop-signal.js';

describe('call scope', () => {
  it('ends at its deadline as unavailable, running its listeners once', async () => {
    const scope = new CallScope('acquireLease', { deadlineMs: 5 });
    let heard = 0;
    scope.addEventListener('abort', () => heard++);
    await new Promise((r) => setTimeout(r, 20));
    expect(scope.aborted).toBe(true);
    expect(heard).toBe(1);
    expect(scope.giveUpError()).toBeInstanceOf(EtcdUnavailableError);
    scope.dispose();
  });

  it("ends with the caller's signal as an aborted call", () => {
    const caller = new AbortController();
    const scope = new CallScope('renewLease', { deadlineMs: 60_000, signals: [caller.signal] });
    caller.abort(new Error('user gave up'));
    expect(scope.aborted).toBe(true);
    expect(scope.giveUpError()).toBeInstanceOf(LeaseAbortedError);
    scope.dispose();
  });

  it('a lifetime ends every open scope with its reason, and every scope opened after', () => {
    const lifetime = new OpenScopes();
    const open = new CallScope('acquireLease', { deadlineMs: 60_000, lifetime });
    const closed = new ProviderClosedError('call in flight');
    lifetime.end(closed);
    expect(open.giveUpError()).toBe(closed);
    const late = new CallScope('acquireLease', { deadlineMs: 60_000, lifetime });
    expect(late.aborted).toBe(true);
    open.dispose();
    late.dispose();
  });

  it('a removed listener never runs; race and untilStopped reject when the scope ends', async () => {
    const scope = new CallScope('releaseLease', { deadlineMs: 60_000 });
    let heard = false;
    const listener = () => (heard = true);
    scope.addEventListener('abort', listener);
    scope.removeEventListener('abort', listener);
    const never = new Promise<void>(() => {});
    const raced = scope.race(never);
    const waited = untilStopped(scope, never);
    scope.stop(new Error('stop'));
    await expect(raced).rejects.toBeInstanceOf(LeaseAbortedError);
    await expect(waited).rejects.toThrow('call ended');
    expect(heard).toBe(false);
    scope.dispose();
  });

  it('sleep ends early when the scope ends', async () => {
    const scope = new CallScope('acquireLease', { deadlineMs: 60_000 });
    const started = performance.now();
    const slept = scope.sleep(60_000);
    scope.stop(undefined);
    await slept;
    expect(performance.now() - started).toBeLessThan(1000);
    scope.dispose();
  });
});
