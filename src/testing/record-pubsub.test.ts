import { EventEmitterPubSub } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';
import { checkEventHistory } from '../../safety-checker/events/check-events.js';
import { recordPubSub } from './record-pubsub.js';

const event = (eventKey: string) => ({ type: 'signal', runId: 'r', data: { eventKey } });

describe('recordPubSub on Mastra’s in-memory pubsub', () => {
  it('records publishes and deliveries that checkEventHistory passes, and stays the pubsub it wraps', async () => {
    const pubsub = recordPubSub(new EventEmitterPubSub(), { process: 'p1' });
    const got: string[] = [];
    await pubsub.subscribe('t', (e) => void got.push((e.data as { eventKey: string }).eventKey));
    for (const key of ['e1', 'e2', 'e3']) await pubsub.publish('t', event(key));
    await pubsub.flush();
    expect(got).toEqual(['e1', 'e2', 'e3']);
    expect(pubsub).toBeInstanceOf(EventEmitterPubSub);
    const verdict = checkEventHistory(pubsub.history());
    expect(verdict.violations).toEqual([]);
    expect(verdict.summary).toMatchObject({ publishes: 3, deliveries: 3 });
  });

  it('a pubsub that drops an event is reported with the event lost', async () => {
    const inner = new EventEmitterPubSub();
    // A broken pubsub: resolves the publish of e2 without delivering it.
    const dropping = new Proxy(inner, {
      get(target, property) {
        if (property === 'publish') {
          return (topic: string, e: Parameters<EventEmitterPubSub['publish']>[1]) =>
            (e.data as { eventKey: string }).eventKey === 'e2' ? Promise.resolve() : target.publish(topic, e);
        }
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const pubsub = recordPubSub(dropping, { process: 'p1' });
    await pubsub.subscribe('t', () => {});
    for (const key of ['e1', 'e2', 'e3']) await pubsub.publish('t', event(key));
    await inner.flush();
    const verdict = checkEventHistory(pubsub.history());
    expect(verdict.violations).toMatchObject([{ kind: 'lost', eventKeys: ['e2'] }]);
  });
});
