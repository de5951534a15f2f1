import type { Event, EventCallback } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';
import { LocalDelivery } from '../deliver/local-delivery.js';
import { LocalBus } from './local-bus.js';

const noop = () => {};
const bus = () => new LocalBus(new LocalDelivery({ maxDeliveryAttempts: 3, redeliveryDelayMs: 1, inFlightTimeoutMs: 0, logger: {}, onDelivered: noop, onRedelivered: noop, onDropped: noop }));
const event = (data: unknown): Event => ({ type: 't', id: 'i', runId: 'r', data, createdAt: new Date(), deliveryAttempt: 1 });

describe('local bus (localOnly)', () => {
  it('gives every fan-out subscriber the very object published, and each group one delivery in turn', () => {
    const b = bus();
    const got: string[] = [];
    const payload = { live: new Map() };
    const seen: unknown[] = [];
    const fan1: EventCallback = (e) => void (got.push('f1'), seen.push(e.data));
    const fan2: EventCallback = (e) => void (got.push('f2'), seen.push(e.data));
    const g1: EventCallback = () => void got.push('g1');
    const g2: EventCallback = () => void got.push('g2');
    b.add('t', fan1, undefined);
    b.add('t', fan2, undefined);
    b.add('t', g1, 'G');
    b.add('t', g2, 'G');
    b.publish('t', event(payload));
    b.publish('t', event(payload));
    expect(got.sort()).toEqual(['f1', 'f1', 'f2', 'f2', 'g1', 'g2']);
    expect(seen.every((d) => d === payload)).toBe(true);
  });

  it('stops delivering to a removed callback and forgets empty topics', () => {
    const b = bus();
    let calls = 0;
    const cb: EventCallback = () => void calls++;
    b.add('t', cb, 'G');
    expect(b.remove('t', cb)).toBe(true);
    expect(b.remove('t', cb)).toBe(false);
    b.publish('t', event(1));
    b.publish('other', event(1));
    expect(calls).toBe(0);
  });

  it('adds a callback once: added twice, it gets each event once, and one remove ends it', () => {
    const b = bus();
    let calls = 0;
    const cb: EventCallback = () => void calls++;
    b.add('t', cb, undefined);
    b.add('t', cb, undefined);
    b.add('g', cb, 'G');
    b.add('g', cb, 'G');
    b.publish('t', event(1));
    b.publish('g', event(1));
    expect(calls).toBe(2);
    b.remove('t', cb);
    b.remove('g', cb);
    b.publish('t', event(1));
    b.publish('g', event(1));
    expect(calls).toBe(2);
  });
});
