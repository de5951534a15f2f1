import type { Event, EventCallback } from '@mastra/core/events';
import type { LocalDelivery } from '../deliver/local-delivery.js';

interface TopicSubscribers {
  fanout: EventCallback[];
  groups: Map<string, { callbacks: EventCallback[]; next: number }>;
}

/**
 * `localOnly` events (and `publishMode` 'local'): delivered inside this process only, never encoded, never written —
 * Mastra tags run-local workflow topics this way, and their payloads can be megabytes and hold live objects. Every
 * fan-out subscriber of the topic gets the very object published; each group gets it once, at one of its local
 * callbacks in turn. ack/nack work as for any delivery nobody else shares (local-delivery.ts); a nacked grouped event
 * may go to the group's next local callback.
 */
export class LocalBus {
  private readonly topics = new Map<string, TopicSubscribers>();

  constructor(private readonly delivery: LocalDelivery) {}

  /** Adds `cb` to the topic (fan-out, or one group); a callback already there is not added twice. */
  add(topic: string, cb: EventCallback, group: string | undefined): void {
    const subscribers: TopicSubscribers = this.topics.get(topic) ?? { fanout: [], groups: new Map() };
    this.topics.set(topic, subscribers);
    if (group === undefined) return addOnce(subscribers.fanout, cb);
    const members = subscribers.groups.get(group) ?? { callbacks: [], next: 0 };
    subscribers.groups.set(group, members);
    addOnce(members.callbacks, cb);
  }

  /** Removes `cb` from the topic (fan-out and every group); true when it was there. */
  remove(topic: string, cb: EventCallback): boolean {
    const subscribers = this.topics.get(topic);
    if (!subscribers) return false;
    let found = dropFrom(subscribers.fanout, cb);
    for (const [group, members] of subscribers.groups) {
      found = dropFrom(members.callbacks, cb) || found;
      if (members.callbacks.length === 0) subscribers.groups.delete(group);
    }
    if (subscribers.fanout.length === 0 && subscribers.groups.size === 0) this.topics.delete(topic);
    return found;
  }

  publish(topic: string, event: Event): void {
    const subscribers = this.topics.get(topic);
    if (!subscribers) return;
    for (const cb of [...subscribers.fanout]) {
      this.delivery.deliver(() => (subscribers.fanout.includes(cb) ? cb : undefined), event);
    }
    for (const group of subscribers.groups.keys()) {
      this.delivery.deliver(() => {
        const members = this.topics.get(topic)?.groups.get(group);
        if (!members || members.callbacks.length === 0) return undefined;
        return members.callbacks[members.next++ % members.callbacks.length];
      }, event);
    }
  }
}

function addOnce(list: EventCallback[], cb: EventCallback): void {
  if (!list.includes(cb)) list.push(cb);
}

function dropFrom(list: EventCallback[], cb: EventCallback): boolean {
  const index = list.indexOf(cb);
  if (index < 0) return false;
  list.splice(index, 1);
  return true;
}
