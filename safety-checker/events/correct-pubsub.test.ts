/**
 * The event checker never flags a history a correct pubsub could have produced, whatever the timing: histories
 * from a tiny model of one. Publishes commit at one instant between send and return, one publisher's in call order
 * (a publish that throws may still have committed); the topic's order is the commit order. Fan-out subscribers get
 * every committed event in that order, later and later, some nacked and redelivered as the next attempt. A group's
 * member claims each event, settles it, nacks some (the next attempt goes to any member after the nack), and a
 * member whose process is faulted while it holds one has it taken over (as the next attempt) after the fault began.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkEventHistory } from './check-events.js';
import type { ProcessFault, RecordedDelivery, RecordedPublish, RecordedSubscription } from './types.js';

interface PublishPlan {
  readonly publisher: number;
  readonly gap: number;
  readonly latency: number;
  readonly at: number;
  readonly throws: boolean;
  readonly committed: boolean;
}

const arbPublish = fc.record({
  publisher: fc.integer({ min: 0, max: 2 }),
  gap: fc.integer({ min: 0, max: 20 }),
  latency: fc.integer({ min: 1, max: 30 }),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  throws: fc.boolean(),
  committed: fc.boolean(),
});

function publishes(plans: readonly PublishPlan[]): { publishes: RecordedPublish[]; log: { p: RecordedPublish; committedAt: number }[] } {
  const out: RecordedPublish[] = [];
  const log: { p: RecordedPublish; committedAt: number }[] = [];
  const lastCommit = [0, 0, 0];
  let t = 100;
  plans.forEach((plan, i) => {
    t += plan.gap;
    const sentAt = t;
    const returnedAt = t + plan.latency;
    // One publisher's publishes commit in call order: never before its previous one.
    const committedAt = Math.max(sentAt + plan.at * plan.latency, (lastCommit[plan.publisher] as number) + 0.001);
    const ok = !plan.throws && committedAt <= returnedAt;
    const p: RecordedPublish = { publisher: `P${plan.publisher}`, topic: 't', eventKey: `e${i}`, sentAt, returnedAt, outcome: ok ? 'ok' : 'error' };
    out.push(p);
    if (ok || plan.committed) {
      lastCommit[plan.publisher] = committedAt;
      log.push({ p, committedAt });
    }
  });
  log.sort((a, b) => a.committedAt - b.committedAt);
  return { publishes: out, log };
}

describe('the event checker on histories of a correct pubsub', () => {
  it('flags nothing', () => {
    fc.assert(
      fc.property(
        fc.array(arbPublish, { minLength: 1, maxLength: 25 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.boolean()), { minLength: 200, maxLength: 200 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 1, max: 200 })), { maxLength: 2 }),
        (plans, draws, faultPlans) => {
          const { publishes: pubs, log } = publishes(plans);
          let d = 0;
          const draw = () => draws[d++ % draws.length] as [number, boolean];
          const subscriptions: RecordedSubscription[] = [
            { subscriber: 'F1', process: 'a', topic: 't', startFrom: 'earliest', sentAt: 0, liveAt: 1 },
            { subscriber: 'F2', process: 'b', topic: 't', startFrom: 'earliest', sentAt: 0, liveAt: 1 },
            { subscriber: 'G1', process: 'a', topic: 't', group: 'g', startFrom: 'earliest', sentAt: 0, liveAt: 1 },
            { subscriber: 'G2', process: 'b', topic: 't', group: 'g', startFrom: 'earliest', sentAt: 0, liveAt: 1 },
          ];
          const deliveries: RecordedDelivery[] = [];
          for (const fanOut of ['F1', 'F2']) {
            let t = 0;
            for (const { p, committedAt } of log) {
              // Every delivery strictly after the one before (a tie would leave the order undefined).
              t = Math.max(t, committedAt) + draw()[0] + 1;
              let attempt = 1;
              // A nack, then the redelivery as the next attempt.
              while (draw()[1] && attempt < 3) {
                deliveries.push({ subscriber: fanOut, topic: 't', eventKey: p.eventKey, attempt, deliveredAt: t, settledAt: t + 1, settlement: 'nack', settleOutcome: 'ok' });
                attempt++;
                t += 2;
              }
              deliveries.push({ subscriber: fanOut, topic: 't', eventKey: p.eventKey, attempt, deliveredAt: t, settledAt: t + 1, settlement: 'ack', settleOutcome: 'ok' });
            }
          }
          const faults: ProcessFault[] = faultPlans.map(([member, start, length]) => ({ process: member === 0 ? 'a' : 'b', start: 100 + start, end: 100 + start + length }));
          const faulted = (process: string, from: number, to: number) => faults.find((f) => f.process === process && f.start < to && (f.end as number) > from);
          for (const { p, committedAt } of log) {
            let t = committedAt + draw()[0];
            for (let attempt = 1; ; attempt++) {
              const [pause, nack] = draw();
              const member = pause % 2 === 0 ? 'G1' : 'G2';
              const process = member === 'G1' ? 'a' : 'b';
              const settledAt = t + 1 + pause;
              const fault = faulted(process, t, settledAt);
              if (fault && attempt < 5) {
                // The holder stalls; another delivery takes the event over once the fault has begun.
                deliveries.push({ subscriber: member, topic: 't', eventKey: p.eventKey, attempt, deliveredAt: t, settlement: 'none' });
                t = Math.max(t, fault.start) + 1;
                continue;
              }
              const last = !nack || attempt >= 4;
              deliveries.push({ subscriber: member, topic: 't', eventKey: p.eventKey, attempt, deliveredAt: t, settledAt, settlement: last ? 'ack' : 'nack', settleOutcome: 'ok' });
              if (last) break;
              t = settledAt + 1;
            }
          }
          const verdict = checkEventHistory({ publishes: pubs, subscriptions, deliveries, endedAt: 100_000 }, { faults, maxDeliveryAttempts: 0 });
          expect(verdict.violations).toEqual([]);
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 300) },
    );
  });
});
