import { describe, expect, it } from 'vitest';
import { EventTooLargeError } from '../../errors/event-too-large.js';
import { checkEventSize, checkPublishedEvent, decodeEvent, encodeEvent, stampEvent } from './envelope.js';

describe('event envelope', () => {
  it('round-trips every field the publisher set, with a fresh id, createdAt and deliveryAttempt', () => {
    const createdAt = new Date('2026-05-01T00:00:00Z');
    const event = stampEvent({ type: 'stream-part', runId: 'r1', data: { delta: 'hi' }, index: 7 }, 'id-1', createdAt);
    expect(event.deliveryAttempt).toBe(1);
    const back = decodeEvent(encodeEvent(event))!;
    expect(back).toEqual({ type: 'stream-part', runId: 'r1', data: { delta: 'hi' }, index: 7, id: 'id-1', createdAt, deliveryAttempt: 1 });
    expect(back.createdAt).toBeInstanceOf(Date);
  });

  it("keeps the publisher's deliveryAttempt", () => {
    expect(stampEvent({ type: 't', runId: 'r', data: null, deliveryAttempt: 3 }, 'i', new Date()).deliveryAttempt).toBe(3);
  });

  it('skips values it did not write', () => {
    expect(decodeEvent(Buffer.from('not json'))).toBeUndefined();
    expect(decodeEvent(Buffer.from('{"v":2,"e":{}}'))).toBeUndefined();
    expect(decodeEvent(Buffer.from('{"v":1,"e":{"type":1}}'))).toBeUndefined();
  });

  it('rejects bad events naming the parameter', () => {
    expect(() => checkPublishedEvent(null)).toThrow(/^event: /);
    expect(() => checkPublishedEvent([])).toThrow(/^event: .*array/);
    expect(() => checkPublishedEvent({ data: 1 })).toThrow(/^event\.type: /);
    expect(() => checkPublishedEvent({ type: 't' })).not.toThrow();
  });

  it('accepts an event of exactly the limit and rejects one byte more with topic, size and limit', () => {
    const key = Buffer.alloc(10);
    expect(() => checkEventSize('t', key, Buffer.alloc(90), 100)).not.toThrow();
    let error: unknown;
    try {
      checkEventSize('my-topic', key, Buffer.alloc(612_335), 524_288);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EventTooLargeError);
    expect(error).toMatchObject({ code: 'ELEASE_EVENT_TOO_LARGE', retryable: false, topic: 'my-topic', bytes: 612_345, limit: 524_288 });
    expect((error as Error).message).toBe('publish: event for topic "my-topic" is 612 345 bytes encoded; at most 524 288 (maxEventBytes)');
  });
});
