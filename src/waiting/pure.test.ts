import { describe, expect, it } from 'vitest';
import { LeaseAbortedError } from '../errors/aborted.js';
import { ProviderClosedError } from '../errors/closed.js';
import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import { LeaseWaitTimeoutError } from '../errors/wait-timeout.js';
import { errorBackoffMs, recheckDelayMs } from './schedule.js';
import { checkWaitOptions, stopSignal } from './stop.js';
import { Wakeup } from './wakeup.js';

describe('waiting schedule', () => {
  it('the safety-net re-check is half the TTL clamped to 1–5 s, jittered ±20 %', () => {
    expect(recheckDelayMs(2000, 0.5)).toBe(1000);
    expect(recheckDelayMs(500, 0.5)).toBe(1000);
    expect(recheckDelayMs(60_000, 0.5)).toBe(5000);
    expect(recheckDelayMs(60_000, 0)).toBe(4000);
    expect(recheckDelayMs(60_000, 0.9999)).toBeLessThanOrEqual(6000);
  });

  it('error backoff doubles from 100 ms and never exceeds 2 s nor the re-check delay', () => {
    expect(errorBackoffMs(1, 10_000, 0.9999)).toBeLessThanOrEqual(100);
    expect(errorBackoffMs(2, 10_000, 0.9999)).toBeLessThanOrEqual(200);
    expect(errorBackoffMs(2, 10_000, 0)).toBe(100);
    for (let n = 1; n < 100; n++) expect(errorBackoffMs(n, 2000, 0.9999)).toBeLessThanOrEqual(1000);
    expect(errorBackoffMs(50, 60_000, 0.9999)).toBe(2000);
  });
});

describe('wait options and the stop signal', () => {
  it('rejects bad options, naming the parameter', () => {
    expect(() => checkWaitOptions({ timeoutMs: 0 })).toThrow(LeaseArgumentRangeError);
    expect(() => checkWaitOptions({ timeoutMs: Number.NaN })).toThrow(/^options.timeoutMs/);
    expect(() => checkWaitOptions({ signal: {} as AbortSignal })).toThrow(LeaseArgumentTypeError);
    expect(() => checkWaitOptions(5 as never)).toThrow(/^options:/);
    expect(() => checkWaitOptions({ timeoutMs: Infinity })).not.toThrow();
  });

  it('each cause of stopping has its own typed reason', async () => {
    const never = new AbortController().signal;
    const timeout = stopSignal('w', { timeoutMs: 10 }, never);
    await new Promise((r) => timeout.signal.addEventListener('abort', r));
    expect(timeout.signal.reason).toBeInstanceOf(LeaseWaitTimeoutError);

    const caller = new AbortController();
    const aborted = stopSignal('w', { signal: caller.signal }, never);
    caller.abort('bye');
    expect(aborted.signal.reason).toBeInstanceOf(LeaseAbortedError);
    expect((aborted.signal.reason as Error).cause).toBe('bye');

    const closing = new AbortController();
    const closed = stopSignal('w', undefined, closing.signal);
    closing.abort();
    expect(closed.signal.reason).toBeInstanceOf(ProviderClosedError);
  });

  it('dispose clears the timer, so a finished wait never fires later', async () => {
    const stop = stopSignal('w', { timeoutMs: 20 }, new AbortController().signal);
    stop.dispose();
    await new Promise((r) => setTimeout(r, 40));
    expect(stop.signal.aborted).toBe(false);
  });
});

describe('Wakeup', () => {
  it('a notification while nobody waits is kept for the next wait; clear() drops it', async () => {
    const stop = new AbortController().signal;
    const wake = new Wakeup();
    wake.notify();
    expect(await wake.wait(10_000, stop)).toBe('notified');
    wake.notify();
    wake.clear();
    expect(await wake.wait(5, stop)).toBe('timer');
  });

  it('wakes a waiter on notify or stop', async () => {
    const controller = new AbortController();
    const wake = new Wakeup();
    const first = wake.wait(10_000, controller.signal);
    wake.notify();
    expect(await first).toBe('notified');
    const second = wake.wait(10_000, controller.signal);
    controller.abort();
    expect(await second).toBe('stopped');
  });
});
