import type { Event } from '@mastra/core/events';
import { EventTooLargeError } from '../../errors/event-too-large.js';
import { LeaseArgumentTypeError } from '../../errors/invalid-argument.js';
import type { PublishedEvent } from '../options.js';
import { decodeValue, encodeValue } from './value-codec.js';

/** Version of the stored form; a reader skips values of a version it does not know. */
const VERSION = 1;

/**
 * The stored value of one event: `{"v":1,"e":<the event through the value codec>}` in UTF-8 JSON. The whole event
 * goes through the codec, so every field the publisher set survives (Mastra's `index`, which `CachingPubSub`
 * de-duplicates on, among them) and `createdAt` comes back as a Date.
 */
export function encodeEvent(event: Event): Buffer {
  return Buffer.from(JSON.stringify({ v: VERSION, e: encodeValue(event) }), 'utf8');
}

/** The event stored in `value`, or undefined for a value this version did not write (a foreign or newer writer). */
export function decodeEvent(value: Buffer): Event | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.toString('utf8'));
  } catch {
    return undefined;
  }
  const stored = parsed as { v?: unknown; e?: unknown } | null;
  if (stored === null || typeof stored !== 'object' || stored.v !== VERSION) return undefined;
  const event = decodeValue(stored.e) as Event | null;
  if (event === null || typeof event !== 'object' || typeof event.type !== 'string' || typeof event.id !== 'string') return undefined;
  return event;
}

/** What `publish` checks before anything is queued; every error names the parameter. */
export function checkPublishedEvent(event: unknown): asserts event is PublishedEvent {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    throw new LeaseArgumentTypeError('event', `must be an object, got ${event === null ? 'null' : Array.isArray(event) ? 'an array' : typeof event}`);
  }
  const { type } = event as { type?: unknown };
  if (typeof type !== 'string' || type.length === 0) throw new LeaseArgumentTypeError('event.type', 'must be a non-empty string');
}

/**
 * The event as subscribers receive it: the publisher's fields, a fresh `id` and `createdAt`, and the publisher's
 * `deliveryAttempt` or 1.
 */
export function stampEvent(event: PublishedEvent, id: string, createdAt: Date): Event {
  return { ...event, id, createdAt, deliveryAttempt: event.deliveryAttempt ?? 1 } as Event;
}

/** Rejects an event whose key and value together exceed `limit` bytes. */
export function checkEventSize(topic: string, key: Buffer, value: Buffer, limit: number): void {
  const bytes = key.length + value.length;
  if (bytes > limit) throw new EventTooLargeError(topic, bytes, limit);
}
