import type { Event, EventCallback } from '@mastra/core/events';
import type { LeaseLogger } from '../../config/options.js';
import { AckRefusedError } from '../../errors/ack-refused.js';

/**
 * A callback as a newer Mastra calls it: a fourth argument, `extend`, pushes back the delivery's in-flight timeout
 * (Mastra 1.71's `EventCallback` names three; a callback that takes fewer ignores it).
 */
export type CallbackWithExtend = (event: Event, ack: () => Promise<void>, nack: () => Promise<void>, extend: () => Promise<void>) => unknown;

interface LocalDeliveryPolicy {
  maxDeliveryAttempts: number;
  redeliveryDelayMs: number;
  /** 0: off. */
  inFlightTimeoutMs: number;
  logger: LeaseLogger;
  onDelivered(): void;
  onRedelivered(reason: 'nack' | 'in-flight-timeout'): void;
  onDropped(): void;
}

/**
 * Hands events to callbacks in this process, with ack/nack as Mastra documents them for deliveries nobody else
 * shares (fan-out subscriptions, `localOnly` events): `ack` settles; `nack` — or a callback that throws or returns a
 * rejected promise — offers the event again after `redeliveryDelayMs × attempt` with `deliveryAttempt + 1`, until
 * `maxDeliveryAttempts`, then drops it with a warning. A delivery neither acked nor nacked within `inFlightTimeoutMs`
 * is nacked on the handler's behalf and offered again at once (its late nack then changes nothing, and its late ack
 * rejects with `AckRefusedError`); the
 * callback's fourth argument, `extend`, starts that timeout over. The
 * callback's promise is not awaited before the next delivery: callbacks run in delivery order without waiting for one
 * another.
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
    let settled: 'ack' | 'nack' | 'timed-out' | undefined;
    let timer: NodeJS.Timeout | undefined;
    const settle = (as: 'ack' | 'nack' | 'timed-out'): boolean => {
      if (settled) return false;
      settled = as;
      if (timer) this.forget(timer);
      return true;
    };
    // An ack after a nack or a timeout did not finish the delivery (the event comes again): it says so rather than
    // resolve. A second ack gets the first's answer.
    const ack = async (): Promise<void> => {
      if (settle('ack') || settled === 'ack') return;
      throw new AckRefusedError(event.id, settled === 'nack' ? 'nacked' : 'timed-out');
    };
    const nack = async (): Promise<void> => {
      if (settle('nack')) this.retry(target, event, attempt, 'nack');
    };
    const { inFlightTimeoutMs, logger } = this.policy;
    const arm = () => {
      timer = this.after(inFlightTimeoutMs, () => {
        if (!settle('timed-out')) return;
        logger.warn?.('an event was neither acked nor nacked within inFlightTimeoutMs; nacked on its handler’s behalf', { type: event.type, id: event.id, attempt });
        this.retry(target, event, attempt, 'in-flight-timeout');
      });
    };
    if (inFlightTimeoutMs > 0) arm();
    // The heartbeat of a long handler: its in-flight timeout starts over. Nothing once settled or timed out.
    const extend = async (): Promise<void> => {
      if (settled || !timer) return;
      this.forget(timer);
      arm();
    };
    this.policy.onDelivered();
    try {
      const result = (cb as CallbackWithExtend)(event, () => handled(ack()), nack, extend);
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

  /** A nack's redelivery waits `redeliveryDelayMs × attempt`; an expired one has waited long enough and goes at once. */
  private retry(target: () => EventCallback | undefined, event: Event, attempt: number, reason: 'nack' | 'in-flight-timeout'): void {
    if (attempt >= this.policy.maxDeliveryAttempts) {
      this.policy.onDropped();
      this.policy.logger.warn?.('event dropped after its last delivery attempt', { type: event.type, id: event.id, attempts: attempt });
      return;
    }
    const redeliver = () => {
      this.policy.onRedelivered(reason);
      this.deliver(target, { ...event, deliveryAttempt: attempt + 1 });
    };
    if (reason === 'nack') this.after(this.policy.redeliveryDelayMs * attempt, redeliver);
    else redeliver();
  }

  private after(delayMs: number, fire: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped) fire();
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
    return timer;
  }

  private forget(timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    this.timers.delete(timer);
  }
}

/**
 * `promise`, marked handled: a caller that drops an ack's or nack's promise (Mastra's pull transport fires `nack()`
 * without awaiting it) gets no unhandled rejection, which would end its process; one that awaits it still sees the
 * error.
 */
export function handled(promise: Promise<void>): Promise<void> {
  promise.catch(() => {});
  return promise;
}
