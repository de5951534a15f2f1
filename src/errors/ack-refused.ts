import { LeaseError } from './lease-error.js';

/**
 * Why an `ack()` did not finish its delivery:
 * - `taken-over` (consumer groups): another member claimed the event first (this member's session lapsed, so the
 *   group took its work back); the event is that member's now and reaches a handler again;
 * - `timed-out`: `inFlightTimeoutMs` passed before the ack, and the event was nacked on the handler's behalf;
 * - `nacked`: the handler (or its rejected promise) nacked this delivery before acking it;
 * - `expired` (consumer groups): the event and its claim were gone from etcd, expired at `groupBacklogMs` while the
 *   handler had it.
 */
export type AckRefusedReason = 'taken-over' | 'timed-out' | 'nacked' | 'expired';

/**
 * An `ack()` that did not finish its delivery: the event is (or was) delivered again as the next attempt — or, timed
 * out at its last attempt, dropped. For a consumer group it is an ack etcd did not take as this delivery's. The
 * handler's work may be done twice (at-least-once), but an ack never says "finished" while the event is handed out
 * again. Not retryable: the delivery is no longer this handler's to settle.
 */
export class AckRefusedError extends LeaseError {
  readonly code = 'ELEASE_ACK_REFUSED' as const;
  readonly retryable = false;

  constructor(
    /** The event's id. */
    readonly eventId: string,
    readonly reason: AckRefusedReason,
    /** Where it was delivered: its topic, and its consumer group (none for a fan-out subscription). */
    readonly topic?: string,
    readonly group?: string,
  ) {
    const where = `${topic === undefined ? '' : ` of topic ${JSON.stringify(topic)}`}${group === undefined ? '' : `, group ${JSON.stringify(group)},`}`;
    super(`ack: event ${JSON.stringify(eventId)}${where} was not finished by this ack (${reason})`);
  }
}
