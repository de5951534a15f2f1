import type { Event, EventCallback } from '@mastra/core/events';
import type { LeaseLogger } from '../../config/options.js';

export interface LocalDeliveryPolicy {
  maxDeliveryAttempts: number;
  redeliveryDelayMs: number;
  logger: LeaseLogger;
  onDelivered(): void;
  onRedelivered(): void;
  onDropped(): void;
}

/**
 * Hands events to callbacks in this process, with ack/nack as Mastra documents them for deliveries nobody else
 * shares (fan-out subscriptions, `localOnly` events): `ack` settles; `nack` — or a callback that throws or returns a
 * rejected promise — offers the event again after `redeliveryDelayMs × attempt` with `deliveryAttempt + 1`, until
 * `maxDeliveryAttempts`, then drops it with a warning. The callback's promise is not awaited before the next
 * delivery: callbacks run in delivery order without waiting for one another.
 *
 * `target` is asked again at each attempt: a group's redelivery may go to another local member, and a callback that
 * unsubscribed meanwhile gets nothing.
 */
export class LocalDelivery {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly policy: LocalDeliveryPolicy) {}

  deliver(target: () => EventCallback | undefined, event: Event): void {
    const cb = target();
    if (!cb || this.stopped) return;
    const attempt = event.deliveryAttempt ?? 1;
    let settled = false;
    const ack = async (): Promise<void> => {
      settled = true;
    };
    const nack = async (): Promise<void> => {
      if (settled) return;
      settled = true;
      this.retry(target, event, attempt);
    };
    this.policy.onDelivered();
    try {
      const result = cb(event, ack, nack);
      if (result && typeof (result as Promise<void>).then === 'function') (result as Promise<void>).catch(() => void nack());
    } catch {
      void nack();
    }
  }

  /** Cancels pending redeliveries; nothing more is delivered. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private retry(target: () => EventCallback | undefined, event: Event, attempt: number): void {
    if (attempt >= this.policy.maxDeliveryAttempts) {
      this.policy.onDropped();
      this.policy.logger.warn?.('event dropped after its last delivery attempt', { type: event.type, id: event.id, attempts: attempt });
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.policy.onRedelivered();
      this.deliver(target, { ...event, deliveryAttempt: attempt + 1 });
    }, this.policy.redeliveryDelayMs * attempt);
    timer.unref();
    this.timers.add(timer);
  }
}
