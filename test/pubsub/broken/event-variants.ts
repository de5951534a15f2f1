import type { EventViolationKind } from '../../../safety-checker/events/types.js';
import { doubleClaims, doubleDelivers, dropsOne, reorders, type BrokenPubSub } from './broken-pubsubs.js';

/**
 * The pubsubs the event chaos run drives side by side on one cluster, by the name a worker process is given: the
 * real EtcdPubSub and four deliberately broken ones (the real one seen through a wrapper of broken-pubsubs.ts), each
 * with the violations the event checker must find in its history. They share the worker's EtcdPubSub, its
 * publishes and its faults: a broken one differs from the real one only by what it breaks.
 */
export interface EventVariant {
  /** Builds this variant over the worker's real pubsub (a fresh wrapper per process: the counts are per process). */
  readonly wrap: () => BrokenPubSub;
  /** What the checker must flag in this variant's history; none for the real one. */
  readonly flaggedAs: readonly EventViolationKind[];
}

export const EVENT_VARIANTS = {
  real: { wrap: () => (inner) => inner, flaggedAs: [] },
  /** The 3rd delivery of each subscription acked unseen, as a backend losing one event would. */
  'drops-one': { wrap: () => dropsOne(3), flaggedAs: ['lost'] },
  /** Each subscription's 3rd delivery handed over after its 4th. */
  reorders: { wrap: () => reorders(3), flaggedAs: ['order'] },
  /** A group subscription made as a fan-out one: every member claims every event, as a claim without its compare. */
  'double-claims': { wrap: () => doubleClaims, flaggedAs: ['duplicate', 'concurrent'] },
  /** Every delivery handed to the callback twice as the same attempt. */
  'double-delivers': { wrap: () => doubleDelivers, flaggedAs: ['duplicate'] },
} as const satisfies Record<string, EventVariant>;

export type EventVariantName = keyof typeof EVENT_VARIANTS;

export const EVENT_VARIANT_NAMES = Object.keys(EVENT_VARIANTS) as EventVariantName[];
