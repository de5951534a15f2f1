import type { Event, EventCallback } from '@mastra/core/events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveEventOptions } from '../resolve-options.js';
import { LocalDelivery } from './local-delivery.js';

const event: Event = { type: 't', id: 'e1', runId: 'r', data: {}, createdAt: new Date(0), deliveryAttempt: 1 };

function delivery(max = 3, inFlightTimeoutMs = 0) {
  const counts = { delivered: 0, redelivered: 0, dropped: 0 };
  const warn = vi.fn();
  const d = new LocalDelivery({
    maxDeliveryAttempts: max,
    redeliveryDelayMs: 100,
    inFlightTimeoutMs,
    logger: { warn },
    onDelivered: () => counts.delivered++,
    onRedelivered: () => counts.redelivered++,
    onDropped: () => counts.dropped++,
  });
  return { d, counts, warn };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('local delivery', () => {
  it('maxDeliveryAttempts: 0 never drops: a nacked event is offered again past the default cap', async () => {
    const { d, counts } = delivery(resolveEventOptions({ maxDeliveryAttempts: 0 }, 'a/lease/').maxDeliveryAttempts);
    const attempts: number[] = [];
    d.deliver(() => (e, _ack, nack) => {
      attempts.push(e.deliveryAttempt!);
      void nack!();
    }, event);
    await vi.advanceTimersByTimeAsync(100 * (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9));
    expect(attempts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(counts.dropped).toBe(0);
    d.stop();
  });

  it('nack redelivers after delay × attempt with attempt + 1, up to the cap, then drops with a warning', async () => {
    const { d, counts, warn } = delivery(3);
    const attempts: number[] = [];
    const cb: EventCallback = (e, _ack, nack) => {
      attempts.push(e.deliveryAttempt!);
      void nack!();
    };
    d.deliver(() => cb, event);
    await vi.advanceTimersByTimeAsync(99);
    expect(attempts).toEqual([1]);
    await vi.advanceTimersByTimeAsync(1);
    expect(attempts).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(200);
    expect(attempts).toEqual([1, 2, 3]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(attempts).toEqual([1, 2, 3]);
    expect(counts).toEqual({ delivered: 3, redelivered: 2, dropped: 1 });
    expect(warn).toHaveBeenCalledOnce();
  });

  it('a callback that throws or rejects counts as a nack; an ack ends it', async () => {
    const { d } = delivery(5);
    const seen: string[] = [];
    d.deliver(() => (e) => {
      seen.push(`throw${e.deliveryAttempt}`);
      if (e.deliveryAttempt === 1) throw new Error('x');
    }, event);
    d.deliver(() => async (e, ack) => {
      seen.push(`reject${e.deliveryAttempt}`);
      if (e.deliveryAttempt === 1) throw new Error('y');
      await ack!();
    }, event);
    await vi.advanceTimersByTimeAsync(1000);
    expect(seen.sort()).toEqual(['reject1', 'reject2', 'throw1', 'throw2']);
  });

  it('does not wait for one callback before calling the next', () => {
    const { d } = delivery();
    const order: number[] = [];
    d.deliver(() => () => new Promise<void>(() => order.push(1)), event);
    d.deliver(() => () => void order.push(2), event);
    expect(order).toEqual([1, 2]);
  });

  it('delivers nothing more after stop, nor to a callback that is gone', async () => {
    const { d } = delivery();
    let calls = 0;
    let present = true;
    d.deliver(() => (present ? (_e, _a, nack) => void (calls++, nack!()) : undefined), event);
    present = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(1);
    present = true;
    d.deliver(() => (_e, _a, nack) => void (calls++, nack!()), event);
    d.stop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
  });

  it('a delivery neither acked nor nacked within inFlightTimeoutMs is offered again at once, up to the cap; its late ack is refused and changes nothing', async () => {
    const { d, counts } = delivery(3, 1000);
    const held: Array<() => Promise<void>> = [];
    const attempts: number[] = [];
    d.deliver(() => (e, ack) => {
      attempts.push(e.deliveryAttempt!);
      held.push(ack!);
    }, event);
    await vi.advanceTimersByTimeAsync(999);
    expect(attempts).toEqual([1]);
    await vi.advanceTimersByTimeAsync(1);
    expect(attempts).toEqual([1, 2]);
    // Attempt 1's ack, after its timeout: refused (the event is attempt 2's), and attempt 2 still times out.
    await expect(held[0]!()).rejects.toMatchObject({ code: 'ELEASE_ACK_REFUSED', reason: 'timed-out', eventId: event.id });
    await vi.advanceTimersByTimeAsync(1000);
    expect(attempts).toEqual([1, 2, 3]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(attempts).toEqual([1, 2, 3]);
    expect(counts).toEqual({ delivered: 3, redelivered: 2, dropped: 1 });
  });

  it('an ack after a nack is refused; a second ack gets the first one\'s answer', async () => {
    const { d } = delivery(3, 0);
    const settled: Array<Promise<string>> = [];
    const outcome = (p: Promise<void>) => p.then(() => 'resolved', (e: unknown) => (e as { reason: string }).reason);
    d.deliver(() => (e, ack, nack) => {
      if (e.deliveryAttempt === 1) {
        void nack!();
        settled.push(outcome(ack!()));
      } else {
        settled.push(outcome(ack!()), outcome(ack!()));
      }
    }, event);
    await vi.advanceTimersByTimeAsync(5000);
    expect(await Promise.all(settled)).toEqual(['nacked', 'resolved', 'resolved']);
  });

  it('a delivery settled within inFlightTimeoutMs is not offered again', async () => {
    const { d, counts } = delivery(3, 1000);
    d.deliver(() => (_e, ack) => void setTimeout(() => void ack!(), 900), event);
    await vi.advanceTimersByTimeAsync(5000);
    expect(counts).toEqual({ delivered: 1, redelivered: 0, dropped: 0 });
  });
});
