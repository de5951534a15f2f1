import { describe, expect, it } from 'vitest';
import { deriveEventPrefix, EVENT_DEFAULTS, resolveEventOptions } from './resolve-options.js';

describe('event options', () => {
  it('derives the event prefix beside the lease prefix', () => {
    expect(deriveEventPrefix('mastra/lease/')).toBe('mastra/events/');
    expect(deriveEventPrefix('myapp/lease')).toBe('myapp/events/');
    expect(deriveEventPrefix('a/b/c/')).toBe('a/b/events/');
    expect(() => deriveEventPrefix('lease/')).toThrow(/^options\.eventPrefix: required/);
  });

  it('applies the documented defaults', () => {
    const o = resolveEventOptions({}, 'mastra/lease/');
    expect(o).toMatchObject({ ...EVENT_DEFAULTS, eventPrefix: 'mastra/events/' });
    expect(o.publishMode('t', { type: 'x', runId: 'r', data: null })).toBe('durable');
  });

  it('refuses an event prefix that overlaps the lease prefix either way', () => {
    expect(() => resolveEventOptions({ eventPrefix: 'mastra/lease/events/' }, 'mastra/lease/')).toThrow(/^options\.eventPrefix: .*overlaps/);
    expect(() => resolveEventOptions({ eventPrefix: 'mastra/' }, 'mastra/lease/')).toThrow(/^options\.eventPrefix: /);
  });

  it.each([
    ['retentionMs', 1999],
    ['retentionMs', Number.NaN],
    ['groupMemberTtlMs', 2500],
    ['maxEventBytes', 1024 * 1024 + 1],
    ['maxEventBytes', 1.5],
    ['maxDeliveryAttempts', 0],
    ['redeliveryDelayMs', -1],
    ['claimTimeoutMs', 0],
    ['maxInFlightPerGroup', 0],
    ['writeBehindFlushMs', 0],
    ['watchCheckMs', 10],
    ['inFlightTimeoutMs', -1],
    ['ackDeadlineMs', Number.NaN],
  ])('names options.%s when it is %s', (option, value) => {
    expect(() => resolveEventOptions({ [option]: value }, 'mastra/lease/')).toThrow(new RegExp(`^options\\.${option}: `));
  });

  it('allows an unlimited number of delivery attempts', () => {
    expect(resolveEventOptions({ maxDeliveryAttempts: Number.POSITIVE_INFINITY }, 'a/lease/').maxDeliveryAttempts).toBe(Number.POSITIVE_INFINITY);
  });

  it('names options.publishMode when it is not a function', () => {
    expect(() => resolveEventOptions({ publishMode: 'durable' as never }, 'a/lease/')).toThrow(/^options\.publishMode: /);
  });

  it('reads ackDeadlineMs, the former name of inFlightTimeoutMs, when inFlightTimeoutMs is not given', () => {
    expect(resolveEventOptions({ ackDeadlineMs: 700 }, 'a/lease/').inFlightTimeoutMs).toBe(700);
    expect(resolveEventOptions({ ackDeadlineMs: 700, inFlightTimeoutMs: 900 }, 'a/lease/').inFlightTimeoutMs).toBe(900);
  });
});
