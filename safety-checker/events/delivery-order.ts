import type { EventCheckOptions, EventViolation, RecordedDelivery, RecordedPublish, RecordedSubscription } from './types.js';

/**
 * The order checks. A topic has one order (EtcdPubSub: the commit order), and every subscriber that sees a topic
 * in order sees the same sequence; the checker does not know that order, but three things any topic order obeys
 * can be read from the history alone, on each subscription's sequence of *first* deliveries (a redelivery after a
 * nack repeats an event, it does not move it):
 *
 * - real time: an event whose publish resolved before another's was sent comes first;
 * - per publisher (`publisherOrder`): one publisher's successful publishes to a topic keep their call order;
 * - agreement: two subscriptions never see two events in opposite orders.
 *
 * Fan-out subscriptions are held to all three; a consumer group only while it has a single member (with more, the
 * members split the events and no order is promised), and then to the first two.
 */
export function checkOrder(
  subscriptions: readonly RecordedSubscription[],
  deliveries: readonly RecordedDelivery[],
  publishes: readonly RecordedPublish[],
  options: EventCheckOptions,
): EventViolation[] {
  const publishOf = new Map(publishes.map((p) => [p.eventKey, p]));
  const sequences = new Map<RecordedSubscription, RecordedPublish[]>();
  const groupSizes = new Map<string, number>();
  for (const s of subscriptions) {
    if (s.group !== undefined) groupSizes.set(groupId(s), (groupSizes.get(groupId(s)) ?? 0) + 1);
  }
  for (const s of subscriptions) {
    if (s.group !== undefined && groupSizes.get(groupId(s)) !== 1) continue;
    sequences.set(s, firstDeliveries(s, deliveries, publishOf));
  }

  const violations: EventViolation[] = [];
  for (const [s, sequence] of sequences) {
    const ok = sequence.filter((p) => p.outcome === 'ok');
    const realTime = realTimeViolation(ok);
    if (realTime) {
      const [a, b] = realTime;
      violations.push(violation(s, realTime, `${a.eventKey} was sent at ${ms(a.sentAt)}, after ${b.eventKey} had resolved at ${ms(b.returnedAt)}`));
    }
    if (options.publisherOrder ?? true) {
      for (const [a, b] of publisherViolations(ok)) {
        // The same pair out of real-time order is reported once, as that.
        if (realTime && realTime[0] === a && realTime[1] === b) continue;
        violations.push(violation(s, [a, b], `${a.publisher} published ${b.eventKey} first (at ${ms(b.sentAt)}, ${a.eventKey} at ${ms(a.sentAt)})`));
      }
    }
  }
  violations.push(...disagreements([...sequences].filter(([s]) => s.group === undefined)));
  return violations;
}

const groupId = (s: RecordedSubscription): string => `${s.topic}\u0000${s.group}`;

function firstDeliveries(s: RecordedSubscription, deliveries: readonly RecordedDelivery[], publishOf: Map<string, RecordedPublish>): RecordedPublish[] {
  const seen = new Set<string>();
  const sequence: RecordedPublish[] = [];
  const own = deliveries.filter((d) => d.subscriber === s.subscriber).sort((a, b) => a.deliveredAt - b.deliveredAt);
  for (const d of own) {
    const p = publishOf.get(d.eventKey);
    if (seen.has(d.eventKey) || p === undefined) continue;
    seen.add(d.eventKey);
    sequence.push(p);
  }
  return sequence;
}

/** [earlier delivered, later delivered] where the later one's publish resolved before the earlier one's was sent. */
function realTimeViolation(sequence: readonly RecordedPublish[]): [RecordedPublish, RecordedPublish] | undefined {
  // Walking back, keep the later-delivered event that resolved first: if it resolved before this one was sent,
  // it had to come before it.
  let earliestAfter: RecordedPublish | undefined;
  let found: [RecordedPublish, RecordedPublish] | undefined;
  for (let i = sequence.length - 1; i >= 0; i--) {
    const p = sequence[i] as RecordedPublish;
    if (earliestAfter !== undefined && earliestAfter.returnedAt < p.sentAt) found = [p, earliestAfter];
    if (earliestAfter === undefined || p.returnedAt < earliestAfter.returnedAt) earliestAfter = p;
  }
  return found;
}

/** The first descent in each publisher's call order along the delivered sequence. */
function publisherViolations(sequence: readonly RecordedPublish[]): [RecordedPublish, RecordedPublish][] {
  const last = new Map<string, RecordedPublish>();
  const found = new Map<string, [RecordedPublish, RecordedPublish]>();
  for (const p of sequence) {
    const before = last.get(p.publisher);
    if (before !== undefined && p.sentAt < before.sentAt && !found.has(p.publisher)) found.set(p.publisher, [before, p]);
    if (before === undefined || p.sentAt > before.sentAt) last.set(p.publisher, p);
  }
  return [...found.values()];
}

/** Pairs of fan-out subscriptions of a topic that saw two events in opposite orders (the first such pair each). */
function disagreements(sequences: readonly [RecordedSubscription, RecordedPublish[]][]): EventViolation[] {
  const violations: EventViolation[] = [];
  for (let i = 0; i < sequences.length; i++) {
    const [a, seqA] = sequences[i] as [RecordedSubscription, RecordedPublish[]];
    const position = new Map(seqA.map((p, k) => [p.eventKey, k]));
    for (let j = i + 1; j < sequences.length; j++) {
      const [b, seqB] = sequences[j] as [RecordedSubscription, RecordedPublish[]];
      if (b.topic !== a.topic) continue;
      let previous: RecordedPublish | undefined;
      for (const p of seqB) {
        const k = position.get(p.eventKey);
        if (k === undefined) continue;
        if (previous !== undefined && k < (position.get(previous.eventKey) as number)) {
          violations.push({
            kind: 'order',
            topic: a.topic,
            subscriber: b.subscriber,
            eventKeys: [previous.eventKey, p.eventKey],
            detail: `${b.subscriber} got ${previous.eventKey} before ${p.eventKey}; ${a.subscriber} got them the other way round`,
          });
          break;
        }
        previous = p;
      }
    }
  }
  return violations;
}

function violation(s: RecordedSubscription, [first, second]: [RecordedPublish, RecordedPublish], why: string): EventViolation {
  return {
    kind: 'order',
    topic: s.topic,
    subscriber: s.subscriber,
    eventKeys: [first.eventKey, second.eventKey],
    detail: `${s.subscriber} got ${first.eventKey} before ${second.eventKey}, but ${why}`,
  };
}

const ms = (t: number): string => `${Math.round(t)} ms`;
