/**
 * The event checker on Mastra's own in-memory pubsub (`EventEmitterPubSub`, no etcd): a correct backend's history
 * passes, whatever the handlers' timing, nacks and concurrency; each deliberately broken wrapper is flagged for
 * what it breaks. The same controls run against EtcdPubSub on a real cluster under faults in the chaos suite.
 */
import { EventEmitterPubSub } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';
import { checkEventHistory } from '../../../safety-checker/events/check-events.js';
import { assembleEventHistory, EventRecorder, type EventRecord, type RecordablePubSub } from '../../../safety-checker/events/event-recorder.js';
import { machineClock } from '../../../safety-checker/recorder.js';
import { waitFor } from '../../support/wait.js';
import { doubleClaims, doubleDelivers, dropsOne, reorders, type BrokenPubSub } from './broken-pubsubs.js';

const EVENTS = 30;

/** Two fan-out subscribers and a group of two on one topic; handlers ack after a random pause, and nack one in ten. */
async function recordRun(breakIt?: BrokenPubSub) {
  const records: EventRecord[] = [];
  const inner = new EventEmitterPubSub() as unknown as RecordablePubSub;
  const pubsub = new EventRecorder(breakIt ? breakIt(inner) : inner, { process: 'p1', sink: (r) => records.push(r) });
  let random = 7;
  const next = () => (random = (random * 48271) % 2147483647) / 2147483647;
  const handler = () => async (_event: unknown, ack?: () => Promise<void>, nack?: () => Promise<void>) => {
    await new Promise((resolve) => setTimeout(resolve, next() * 5));
    await (next() < 0.1 ? nack?.() : ack?.());
  };
  for (const options of [{}, {}, { group: 'g' }, { group: 'g' }]) await pubsub.subscribe('t', handler(), options);
  for (let i = 0; i < EVENTS; i++) await pubsub.publish('t', { type: 'e', runId: 'r', data: { eventKey: `e${i}` } });
  const acked = () => records.filter((r) => r.type === 'settle' && r.settlement === 'ack').length;
  // Settled = every delivery acked or nacked; a broken wrapper may leave some never delivered, so the wait ends.
  const settled = () => records.filter((r) => r.type === 'delivery').length === records.filter((r) => r.type === 'settle').length;
  await waitFor('the handlers to settle what was delivered', () => acked() > 0 && settled(), { timeoutMs: 5000 });
  return checkEventHistory(assembleEventHistory(records, machineClock()), { maxDeliveryAttempts: 0 });
}

const kindsOf = (verdict: Awaited<ReturnType<typeof recordRun>>) => [...new Set(verdict.violations.map((v) => v.kind))].sort();

describe('the event checker against a real in-memory pubsub', () => {
  it("passes Mastra's EventEmitterPubSub", async () => {
    const verdict = await recordRun();
    expect(verdict.violations).toEqual([]);
    expect(verdict.summary.publishes).toBe(EVENTS);
  });

  it.each([
    ['drops one', dropsOne(), ['lost']],
    ['reorders', reorders(), ['order']],
    ['double-delivers', doubleDelivers, ['duplicate']],
    ['double-claims', doubleClaims, ['concurrent', 'duplicate']],
  ] as const)('flags a pubsub that %s', async (_name, breakIt, expected) => {
    expect(kindsOf(await recordRun(breakIt))).toEqual(expect.arrayContaining([...expected]));
  });
});
