import type { LeaseProvider, PubSub } from '@mastra/core/events';

/** A pubsub as the conformance suite drives it: Mastra's PubSub, its lease methods, and `close`. */
export type PubSubUnderTest = PubSub & LeaseProvider & { close(): Promise<void> };

/** Delivery settings a case asks for; a subject without them (`redeliveryControls: false`) never gets such a case. */
export interface InstanceSettings {
  maxDeliveryAttempts?: number;
  inFlightTimeoutMs?: number;
  logger?: { warn?: (message: string, ...rest: unknown[]) => void };
}

/**
 * One backend under the suite (conformance.ts). Every behaviour beyond the PubSub contract's core is a flag, and each
 * subject says in its own file why it lacks what it lacks: the suite registers a case only for subjects that have
 * what the case needs, so both subjects run every case that is backend-neutral.
 */
export interface ConformanceSubject {
  name: string;
  /**
   * A pubsub on the subject's bus. Where `separateInstances`, each call is another process's view (its own group
   * membership, connections, leases client); otherwise every call of one test returns the same instance.
   */
  instance(settings?: InstanceSettings): PubSubUnderTest;
  /** Closes what the test made (run after each test). */
  cleanup(): Promise<void>;
  separateInstances: boolean;
  /** Events published before a subscriber or group exists are kept for it (replay, backlog, checkpoints, history). */
  retains: boolean;
  /** maxDeliveryAttempts and inFlightTimeoutMs, a rejected or throwing callback as a nack, fan-out nack, strict settle. */
  redeliveryControls: boolean;
  /** publish and subscribe reject after close. */
  closedRejects: boolean;
  /** localOnly events stay in the publishing instance. */
  localOnlyStaysLocal: boolean;
  /** One subscription per (topic, callback), as Mastra's Redis backend: subscribing the pair again changes nothing. */
  idempotentSubscribe: boolean;
  /** A lease TTL the subject honours as given, and how late it may expire. */
  lease: { ttlMs: number; expirySlackMs: number };
  /** How long a case waits for a delivery that must come. */
  deliveryMs: number;
}
