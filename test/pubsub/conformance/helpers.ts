import { randomUUID } from 'node:crypto';
import type { Event, EventCallback } from '@mastra/core/events';

import { waitFor } from '../../support/wait.js';
import type { ConformanceSubject } from './subject.js';

/** A topic no other case uses. */
export const freshTopic = (what: string): string => `conformance.${what}.${randomUUID()}`;

/** An event as a caller publishes it: `{ n }` and anything else in `data`. */
export function event(n: number, data: Record<string, unknown> = {}, type = 'test'): Omit<Event, 'id' | 'createdAt'> {
  return { type, runId: 'run-1', data: { n, ...data } };
}

const numberOf = (e: Event): number => (e.data as { n: number }).n;
export const numbers = (events: Event[]): number[] => events.map(numberOf);

/** Waits until `probe` holds, within the subject's delivery bound (or `timeoutMs`). */
export function until(subject: ConformanceSubject, what: string, probe: () => boolean, timeoutMs = subject.deliveryMs): Promise<true> {
  return waitFor(what, () => probe() || undefined, { timeoutMs, intervalMs: 10 });
}

/** A subscriber callback that records what it gets, acking each delivery unless told to hold it. */
export function recorder(options: { ack?: boolean } = {}) {
  const events: Event[] = [];
  const cb: EventCallback = (e, ack) => {
    events.push(e);
    if (options.ack !== false) void ack?.();
  };
  return { events, cb };
}
