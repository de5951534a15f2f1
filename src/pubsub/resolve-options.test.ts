import { describe, expect, it } from 'vitest';
import { deriveEventPrefix, EVENT_DEFAULTS, resolveEventOptions } from './resolve-options.js';

describe('event options', () => {
  it('groupBacklogMs: an hour by default, at least retentionMs, named in its error', () => {
    expect(resolveEventOptions({}, 'a/lease/').groupBacklogMs).toBe(3_600_000);
    expect(resolveEventOptions({ retentionMs: 7_200_000 }, 'a/lease/').groupBacklogMs).toBe(7_200_000);
    expect(() => resolveEventOptions({ retentionMs: 10_000, groupBacklogMs: 5_000 }, 'a/lease/')).toThrow(/^options\.groupBacklogMs: must be a finite number of at least 10000/);
  });

  it('maxDeliveryAttempts 0 means no cap, with a notice to log; Infinity says it without one', () => {
    const zero = resolveEventOptions({ maxDeliveryAttempts: 0 }, 'a/lease/');
    expect(zero.maxDeliveryAttempts).toBe(Number.POSITIVE_INFINITY);
    expect(zero.notices).toEqual([expect.stringMatching(/^maxDeliveryAttempts: 0 means no cap/)]);
    expect(resolveEventOptions({ maxDeliveryAttempts: Number.POSITIVE_INFINITY }, 'a/lease/').notices).toEqual([]);
  });

  it('derives the event prefix beside the lease prefix', () => {
    expect(deriveEventPrefix('mastra/lease/')).toBe('mastra/events/');
    expect(deriveEventPrefix('myapp/lease')).toBe('myapp/events/');
    expect(deriveEventPrefix('a/b/c/')).toBe('a/b/events/');
  });

  it('derives an event prefix for a lease prefix of one segment: the segment with -events, not a shared top-level events/', () => {
    expect(deriveEventPrefix('myapp/')).toBe('myapp-events/');
    expect(deriveEventPrefix('/myapp/')).toBe('/myapp-events/');
    expect(deriveEventPrefix('lease/')).toBe('lease-events/');
    // A last segment that is `events` already would give the lease prefix itself.
    expect(deriveEventPrefix('a/events/')).toBe('a/events-events/');
    expect(resolveEventOptions({}, 'myapp/').eventPrefix).toBe('myapp-events/');
  });

  it('never derives an event prefix that overlaps the lease prefix', () => {
    const leasePrefixes = ['mastra/lease/', 'myapp/lease', 'myapp/', '/myapp/', 'a/events/', 'events/', 'a//', 'x/y/z', 'a/b/events/'];
    for (const lease of leasePrefixes) {
      const events = deriveEventPrefix(lease);
      expect(events.startsWith(lease) || lease.startsWith(events), `${lease} → ${events}`).toBe(false);
    }
  });

  it('requires eventPrefix for a one-segment lease prefix without a trailing slash: every key starting with it is a lease key', () => {
    expect(() => deriveEventPrefix('myapp')).toThrow(/^options\.eventPrefix: required: every key starting with the lease prefix 'myapp'/);
    expect(() => deriveEventPrefix('/')).toThrow(/^options\.eventPrefix: required/);
    expect(() => deriveEventPrefix('a/events')).toThrow(/^options\.eventPrefix: required/);
    expect(resolveEventOptions({ eventPrefix: 'events/myapp/' }, 'myapp').eventPrefix).toBe('events/myapp/');
    expect(() => resolveEventOptions({ eventPrefix: 'myapp-events/' }, 'myapp')).toThrow(/^options\.eventPrefix: .*overlaps/);
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
    ['maxDeliveryAttempts', -1],
    ['maxDeliveryAttempts', 2.5],
    ['maxDeliveryAttempts', Number.NaN],
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

  it('allows an unlimited number of delivery attempts, as Infinity or as 0 (what Mastra’s Redis Streams backend reads as unlimited)', () => {
    expect(resolveEventOptions({ maxDeliveryAttempts: Number.POSITIVE_INFINITY }, 'a/lease/').maxDeliveryAttempts).toBe(Number.POSITIVE_INFINITY);
    expect(resolveEventOptions({ maxDeliveryAttempts: 0 }, 'a/lease/').maxDeliveryAttempts).toBe(Number.POSITIVE_INFINITY);
    expect(resolveEventOptions({ maxDeliveryAttempts: 1 }, 'a/lease/').maxDeliveryAttempts).toBe(1);
  });

  it('names options.publishMode when it is not a function', () => {
    expect(() => resolveEventOptions({ publishMode: 'durable' as never }, 'a/lease/')).toThrow(/^options\.publishMode: /);
  });

  it('reads ackDeadlineMs, the former name of inFlightTimeoutMs, when inFlightTimeoutMs is not given', () => {
    expect(resolveEventOptions({ ackDeadlineMs: 700 }, 'a/lease/').inFlightTimeoutMs).toBe(700);
    expect(resolveEventOptions({ ackDeadlineMs: 700, inFlightTimeoutMs: 900 }, 'a/lease/').inFlightTimeoutMs).toBe(900);
  });
});
