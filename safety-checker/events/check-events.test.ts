import { describe, expect, it } from 'vitest';
import { checkEventHistory, formatEventViolations } from './check-events.js';
import { got, history, pub, sub } from './history.fixtures.js';
import { InvalidEventHistoryError } from './validate-events.js';

const kinds = (h: Parameters<typeof checkEventHistory>[0], options: Parameters<typeof checkEventHistory>[1] = {}) =>
  checkEventHistory(h, options).violations.map((v) => `${v.kind} ${v.subscriber} ${v.eventKeys.join(',')}`);

describe('the event checker: nothing lost', () => {
  it('a fan-out subscriber that got every event it was owed passes', () => {
    const h = history({ publishes: [pub('a', 10), pub('b', 20)], subscriptions: [sub('S')], deliveries: [got('S', 'a', 12), got('S', 'b', 25)] });
    expect(kinds(h)).toEqual([]);
  });

  it('a resolved publish a live fan-out subscriber never got is lost', () => {
    const h = history({ publishes: [pub('a', 10), pub('b', 20)], subscriptions: [sub('S')], deliveries: [got('S', 'a', 12)] });
    expect(kinds(h)).toEqual(['lost S b']);
  });

  it('a publish that threw is owed to nobody, and may still arrive', () => {
    const h = history({ publishes: [pub('a', 10, 15, { outcome: 'error' }), pub('b', 20)], subscriptions: [sub('S')], deliveries: [got('S', 'b', 25)] });
    expect(kinds(h)).toEqual([]);
  });

  it("'latest' is owed only what was sent after it went live; 'earliest' also what was retained", () => {
    const publishes = [pub('old', 0), pub('expired', -100_000), pub('new', 50)];
    const subscriptions = [sub('L', { startFrom: 'latest', sentAt: 20, liveAt: 30 }), sub('E', { sentAt: 20, liveAt: 30 })];
    const h = history({ publishes, subscriptions, deliveries: [got('L', 'new', 55), got('E', 'new', 55)] });
    expect(kinds(h, { retentionMs: 60_000 })).toEqual(['lost E old']);
  });

  it('a subscription that ended before the history did is owed nothing more', () => {
    const h = history({ publishes: [pub('a', 10)], subscriptions: [sub('S', { endedAt: 5 })] });
    expect(kinds(h)).toEqual([]);
  });

  it('a group must ack each event; one never acked is lost, one nacked to the cap is dropped and counted', () => {
    const subscriptions = [sub('M1', { group: 'g' }), sub('M2', { group: 'g' })];
    const nacked = (attempt: number, at: number) => got('M1', 'c', at, { attempt, settlement: 'nack' });
    const h = history({
      publishes: [pub('a', 10), pub('b', 20), pub('c', 30)],
      subscriptions,
      deliveries: [got('M1', 'a', 12), got('M2', 'b', 22, { settlement: 'none', settledAt: undefined, settleOutcome: undefined }), ...[1, 2, 3].map((n) => nacked(n, 30 + n * 100))],
    });
    const verdict = checkEventHistory(h, { maxDeliveryAttempts: 3 });
    expect(verdict.violations.map((v) => `${v.kind} ${v.subscriber} ${v.eventKeys}`)).toEqual(['lost group:g b']);
    expect(verdict.summary.droppedAfterNacks).toBe(1);
  });
});

describe('the event checker: topic order', () => {
  it('an event delivered after one published after it resolved is out of order', () => {
    const h = history({ publishes: [pub('a', 10, 11), pub('b', 20, 21)], subscriptions: [sub('S')], deliveries: [got('S', 'b', 22), got('S', 'a', 23)] });
    expect(kinds(h)).toEqual(['order S b,a']);
  });

  it('concurrent publishes of different publishers may come in either order', () => {
    const h = history({
      publishes: [pub('a', 10, 30), pub('b', 20, 25, { publisher: 'Q' })],
      subscriptions: [sub('S')],
      deliveries: [got('S', 'b', 26), got('S', 'a', 31)],
    });
    expect(kinds(h)).toEqual([]);
  });

  it("one publisher's concurrent publishes keep their call order", () => {
    const h = history({ publishes: [pub('a', 10, 30), pub('b', 11, 30)], subscriptions: [sub('S')], deliveries: [got('S', 'b', 31), got('S', 'a', 32)] });
    expect(kinds(h)).toEqual(['order S b,a']);
    expect(kinds(h, { publisherOrder: false })).toEqual([]);
  });

  it('two subscribers that saw two events in opposite orders disagree', () => {
    const h = history({
      publishes: [pub('a', 10, 30), pub('b', 20, 25, { publisher: 'Q' })],
      subscriptions: [sub('S'), sub('T')],
      deliveries: [got('S', 'a', 31), got('S', 'b', 32), got('T', 'b', 31), got('T', 'a', 32)],
    });
    expect(kinds(h)).toEqual(['order T b,a']);
  });

  it('a redelivery repeats an event without moving it', () => {
    const h = history({
      publishes: [pub('a', 10), pub('b', 20)],
      subscriptions: [sub('S')],
      deliveries: [got('S', 'a', 12, { settlement: 'nack' }), got('S', 'b', 22), got('S', 'a', 40, { attempt: 2 })],
    });
    expect(kinds(h)).toEqual([]);
  });

  it('a single-member group is held to topic order; a group of two is not', () => {
    const publishes = [pub('a', 10, 11), pub('b', 20, 21)];
    const single = history({ publishes, subscriptions: [sub('M1', { group: 'g' })], deliveries: [got('M1', 'b', 22), got('M1', 'a', 23)] });
    expect(kinds(single)).toEqual(['order M1 b,a']);
    const pair = history({ publishes, subscriptions: [sub('M1', { group: 'g' }), sub('M2', { group: 'g' })], deliveries: [got('M2', 'b', 22), got('M1', 'a', 23)] });
    expect(kinds(pair)).toEqual([]);
  });
});

describe('the event checker: duplicates and one member at a time', () => {
  it('the same attempt delivered twice is a duplicate (for a group: a double claim)', () => {
    const fanOut = history({ publishes: [pub('a', 10)], subscriptions: [sub('S')], deliveries: [got('S', 'a', 12, { settlement: 'nack' }), got('S', 'a', 40, { settlement: 'ack' })] });
    expect(kinds(fanOut)).toEqual(['duplicate S a']);
    const group = history({
      publishes: [pub('a', 10)],
      subscriptions: [sub('M1', { group: 'g' }), sub('M2', { group: 'g' })],
      deliveries: [got('M1', 'a', 12), got('M2', 'a', 40)],
    });
    expect(kinds(group)).toEqual(['duplicate group:g a']);
  });

  it('a delivery after a confirmed ack is a duplicate; after an ack that failed it is at-least-once', () => {
    const after = (settleOutcome: 'ok' | 'error') =>
      history({ publishes: [pub('a', 10)], subscriptions: [sub('S')], deliveries: [got('S', 'a', 12, { settleOutcome }), got('S', 'a', 40, { attempt: 2 })] });
    expect(kinds(after('ok'))).toEqual(['duplicate S a']);
    expect(kinds(after('error'))).toEqual([]);
    expect(checkEventHistory(after('error')).summary.redeliveries).toBe(1);
  });

  it('two members holding one event at once is flagged, unless the first was faulted or timed out', () => {
    const h = history({
      publishes: [pub('a', 10)],
      subscriptions: [sub('M1', { group: 'g' }), sub('M2', { group: 'g' })],
      deliveries: [got('M1', 'a', 12, { settledAt: 500 }), got('M2', 'a', 100, { attempt: 2 })],
    });
    expect(kinds(h)).toEqual(['concurrent group:g a']);
    expect(kinds(h, { faults: [{ process: 'M1', start: 50, end: 600 }] })).toEqual([]);
    expect(kinds(h, { inFlightTimeoutMs: 80 })).toEqual([]);
  });
});

describe('the event checker: its input and its report', () => {
  it('refuses a malformed history, naming the entry', () => {
    const h = history({ publishes: [pub('a', 10)], subscriptions: [sub('S')], deliveries: [got('X', 'a', 12)] });
    expect(() => checkEventHistory(h)).toThrow(InvalidEventHistoryError);
    expect(() => checkEventHistory(h)).toThrow(/deliveries\[0\]\.subscriber: X has no recorded subscription/);
    expect(() => checkEventHistory(history({ publishes: [pub('a', 10), pub('a', 20)] }))).toThrow(/published twice/);
  });

  it('prints each violation on one line under its kind', () => {
    const h = history({ publishes: [pub('a', 10, 11), pub('b', 20, 21)], subscriptions: [sub('S')], deliveries: [got('S', 'b', 22)] });
    expect(formatEventViolations(checkEventHistory(h).violations)).toBe('lost (1):\n  [t] S never got a (published by P, resolved at 11 ms)');
    expect(formatEventViolations([])).toBe('no event violations');
  });

  it('measures delivery latency from a publish resolving to its first delivery', () => {
    const h = history({ publishes: [pub('a', 10, 11), pub('b', 20, 21)], subscriptions: [sub('S')], deliveries: [got('S', 'a', 15), got('S', 'b', 30)] });
    expect(checkEventHistory(h).summary.deliveryLatencyMs).toEqual({ p50: 9, p99: 9, max: 9, count: 2 });
  });
});
