import { describe, expect, it } from 'vitest';
import { TopicQueue, type QueuedClear, type QueuedEvent } from './topic-queue.js';

const limits = { maxEvents: 3, maxBytes: 100, writeBehindFlushMs: 25 };
let seq = 0;
const event = (mode: 'durable' | 'write-behind' = 'durable', queuedAt = 0, bytes = 10): QueuedEvent => ({
  kind: 'event',
  key: Buffer.from(`k${++seq}`.padEnd(5)),
  value: Buffer.alloc(bytes - 5),
  sent: { at: 0, steady: 0 },
  mode,
  queuedAt,
});
const clear = (queuedAt = 0): QueuedClear => ({ kind: 'clear', queuedAt });

describe('topic queue', () => {
  it('lets one batch fly at a time and sends what queued meanwhile together, in order', () => {
    const q = new TopicQueue(limits);
    const [a, b, c] = [event(), event(), event()];
    q.push(a);
    expect(q.take(0)).toEqual([a]);
    q.push(b);
    q.push(c);
    expect(q.take(0)).toBeUndefined(); // a is still in flight
    q.settle();
    expect(q.take(0)).toEqual([b, c]);
    q.settle();
    expect(q.idle).toBe(true);
  });

  it('cuts batches at the event and byte limits, always taking the first event', () => {
    const q = new TopicQueue(limits);
    const items = [event(), event(), event(), event()];
    for (const i of items) q.push(i);
    expect(q.take(0)).toEqual(items.slice(0, 3));
    q.settle();
    expect(q.take(0)).toEqual(items.slice(3));
    q.settle();
    const big = event('durable', 0, 500);
    const small = event();
    q.push(big);
    q.push(small);
    expect(q.take(0)).toEqual([big]);
    q.settle();
    expect(q.take(0)).toEqual([small]);
    q.settle();
    const [x, y] = [event('durable', 0, 60), event('durable', 0, 60)];
    q.push(x);
    q.push(y);
    expect(q.take(0)).toEqual([x]);
  });

  it('sends a clear alone, after the events queued before it and before those after it', () => {
    const q = new TopicQueue(limits);
    const [a, cl, b] = [event(), clear(), event()];
    q.push(a);
    q.push(cl);
    q.push(b);
    expect(q.take(0)).toEqual([a]);
    q.settle();
    expect(q.take(0)).toEqual([cl]);
    q.settle();
    expect(q.take(0)).toEqual([b]);
  });

  it('holds write-behind events for the flush interval, then sends them as one batch', () => {
    const q = new TopicQueue(limits);
    const [a, b] = [event('write-behind', 100), event('write-behind', 110)];
    q.push(a);
    q.push(b);
    expect(q.take(110)).toBeUndefined();
    expect(q.dueAt()).toBe(125);
    expect(q.take(125)).toEqual([a, b]);
  });

  it('sends held write-behind events at once when a durable event or a clear queues behind them', () => {
    const q = new TopicQueue(limits);
    const [a, d] = [event('write-behind', 100), event('durable', 101)];
    q.push(a);
    expect(q.take(101)).toBeUndefined();
    q.push(d);
    expect(q.take(101)).toEqual([a, d]);
    q.settle();
    const w = event('write-behind', 200);
    q.push(w);
    q.push(clear(201));
    expect(q.take(201)).toEqual([w]);
  });

  it('sends a full batch of write-behind events without waiting', () => {
    const q = new TopicQueue(limits);
    const items = [event('write-behind', 0), event('write-behind', 0), event('write-behind', 0), event('write-behind', 0)];
    for (const i of items) q.push(i);
    expect(q.take(1)).toEqual(items.slice(0, 3));
  });

  it('gives up queued items whose deadline passed and removes an abandoned one', () => {
    const q = new TopicQueue(limits);
    const [a, b, c] = [event(), event(), event()];
    q.push(a);
    q.push(b);
    q.push(c);
    expect(q.expire((i) => i === b)).toEqual([b]);
    expect(q.remove(c)).toBe(true);
    expect(q.remove(c)).toBe(false);
    expect(q.take(0)).toEqual([a]);
  });
});
