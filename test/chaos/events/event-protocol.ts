import type { EventRecord } from '../../../safety-checker/events/event-recorder.js';
import type { EventVariantName } from '../../pubsub/broken/event-variants.js';

/** How the event chaos run configures one worker process (one JSON environment variable). */
export interface EventWorkerConfig {
  readonly name: string;
  readonly endpoints: readonly string[];
  readonly prefix: string;
  readonly eventPrefix: string;
  readonly seed: number;
  readonly variants: readonly EventVariantName[];
  /** Does this process host the single-member schedule group? */
  readonly schedule: boolean;
}

export const EVENT_WORKER_CONFIG_ENV = 'EVENT_CHAOS_WORKER_CONFIG';

/** Parent to worker, one JSON line each on stdin. */
export type EventWorkerCommand =
  /** Start (or stop) the publish lanes; stopping waits for the publishes in flight. */
  | { readonly cmd: 'publish'; readonly on: boolean }
  /** Publish to the thread topics from many callers at once, each as fast as it can, for `ms` (a burst of stream chunks). */
  | { readonly cmd: 'flood'; readonly ms: number }
  /** Step the process's wall clock by `ms` (negative: back), as NTP or an operator does; timers run on. */
  | { readonly cmd: 'step-clock'; readonly ms: number }
  /** Close the pubsub and exit. */
  | { readonly cmd: 'exit' };

/**
 * Worker to parent, one JSON line each on stdout, times on the machine clock. A record without a variant is a
 * publish, shared by every variant's history (they all ride the same publishes).
 */
export type EventWorkerMessage =
  /**
   * `clockOffsetMs`: the worker's machine clock (what its records are stamped with) less the system's wall clock, at
   * ready: every process of a run must read the same machine clock, or cross-process order means nothing.
   */
  | { readonly ready: true; readonly clockOffsetMs: number }
  | { readonly record: EventRecord; readonly variant?: EventVariantName }
  | { readonly publishing: boolean }
  | { readonly flooded: number }
  | { readonly stepped: number }
  /** A warning EtcdPubSub logged (a dropped event, a lost session): counted and printed with the figures. */
  | { readonly warning: string }
  | { readonly fatal: string };
