import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import { checkText } from '../keys/key-codec.js';
import type { EtcdPubSubEventOptions, PublishMode, PublishedEvent } from './options.js';

/** Event options after validation, with every default applied. */
export interface ResolvedEventOptions {
  eventPrefix: string;
  retentionMs: number;
  groupBacklogMs: number;
  retentionBucketMs: number;
  maxEventBytes: number;
  maxDeliveryAttempts: number;
  redeliveryDelayMs: number;
  groupMemberTtlMs: number;
  claimTimeoutMs: number;
  maxInFlightPerGroup: number;
  inFlightTimeoutMs: number;
  publishMode: (topic: string, event: PublishedEvent) => PublishMode;
  writeBehindFlushMs: number;
  maxReplayBytes: number;
  watchCheckMs: number;
  compactionCheckMs: number;
  /** Warnings about the options as given, logged once when the bus starts (`maxDeliveryAttempts: 0`). */
  notices?: readonly string[];
}

export const EVENT_DEFAULTS = {
  retentionMs: 60_000,
  groupBacklogMs: 3_600_000,
  retentionBucketMs: 5_000,
  maxEventBytes: 512 * 1024,
  maxDeliveryAttempts: 5,
  redeliveryDelayMs: 100,
  groupMemberTtlMs: 10_000,
  claimTimeoutMs: 5_000,
  maxInFlightPerGroup: 100,
  inFlightTimeoutMs: 0,
  writeBehindFlushMs: 25,
  maxReplayBytes: 64 * 1024 * 1024,
  watchCheckMs: 5_000,
  compactionCheckMs: 600_000,
} as const;

/** One event alone must fit etcd's default --max-request-bytes (1.5 MiB) with its transaction around it. */
export const MAX_EVENT_BYTES_LIMIT = 1024 * 1024;
/** etcd refuses leases shorter than its minimum TTL (2 s with default election settings). */
const MIN_LEASE_MS = 2_000;

const durable = (): PublishMode => 'durable';

/**
 * Validates the event options once, at construction; every error names the option. `leasePrefix` is the resolved
 * lease prefix, from which the event prefix is derived when not given.
 */
export function resolveEventOptions(options: EtcdPubSubEventOptions, leasePrefix: string): ResolvedEventOptions {
  const eventPrefix = options.eventPrefix ?? deriveEventPrefix(leasePrefix);
  checkText('options.eventPrefix', eventPrefix);
  if (eventPrefix.startsWith(leasePrefix) || leasePrefix.startsWith(eventPrefix)) {
    throw new LeaseArgumentRangeError(
      'options.eventPrefix',
      `'${eventPrefix}' overlaps the lease prefix '${leasePrefix}': neither may be a prefix of the other, or events would be read as leases`,
    );
  }
  const retentionMs = atLeast('options.retentionMs', options.retentionMs ?? EVENT_DEFAULTS.retentionMs, MIN_LEASE_MS);
  const groupMemberTtlMs = atLeast('options.groupMemberTtlMs', options.groupMemberTtlMs ?? EVENT_DEFAULTS.groupMemberTtlMs, MIN_LEASE_MS);
  if (groupMemberTtlMs % 1000 !== 0) throw new LeaseArgumentRangeError('options.groupMemberTtlMs', `must be whole seconds (etcd leases count seconds), got ${groupMemberTtlMs}`);
  const maxEventBytes = whole('options.maxEventBytes', options.maxEventBytes ?? EVENT_DEFAULTS.maxEventBytes, 1);
  if (maxEventBytes > MAX_EVENT_BYTES_LIMIT) {
    throw new LeaseArgumentRangeError('options.maxEventBytes', `at most ${MAX_EVENT_BYTES_LIMIT} (one event must fit one etcd request), got ${maxEventBytes}`);
  }
  const maxDeliveryAttempts = deliveryAttempts(options.maxDeliveryAttempts ?? EVENT_DEFAULTS.maxDeliveryAttempts);
  const publishMode = options.publishMode ?? durable;
  if (typeof publishMode !== 'function') throw new LeaseArgumentTypeError('options.publishMode', 'must be a function (topic, event) => mode');
  return {
    eventPrefix,
    retentionMs,
    groupBacklogMs: atLeast('options.groupBacklogMs', options.groupBacklogMs ?? Math.max(EVENT_DEFAULTS.groupBacklogMs, retentionMs), retentionMs),
    retentionBucketMs: atLeast('options.retentionBucketMs', options.retentionBucketMs ?? EVENT_DEFAULTS.retentionBucketMs, 1),
    maxEventBytes,
    maxDeliveryAttempts,
    redeliveryDelayMs: atLeast('options.redeliveryDelayMs', options.redeliveryDelayMs ?? EVENT_DEFAULTS.redeliveryDelayMs, 0),
    groupMemberTtlMs,
    claimTimeoutMs: atLeast('options.claimTimeoutMs', options.claimTimeoutMs ?? EVENT_DEFAULTS.claimTimeoutMs, 1),
    maxInFlightPerGroup: whole('options.maxInFlightPerGroup', options.maxInFlightPerGroup ?? EVENT_DEFAULTS.maxInFlightPerGroup, 1),
    inFlightTimeoutMs: inFlightTimeout(options),
    publishMode,
    writeBehindFlushMs: atLeast('options.writeBehindFlushMs', options.writeBehindFlushMs ?? EVENT_DEFAULTS.writeBehindFlushMs, 1),
    maxReplayBytes: whole('options.maxReplayBytes', options.maxReplayBytes ?? EVENT_DEFAULTS.maxReplayBytes, 1),
    watchCheckMs: atLeast('options.watchCheckMs', options.watchCheckMs ?? EVENT_DEFAULTS.watchCheckMs, 100),
    compactionCheckMs: atLeast('options.compactionCheckMs', options.compactionCheckMs ?? EVENT_DEFAULTS.compactionCheckMs, 0),
    notices: options.maxDeliveryAttempts === 0 ? [ZERO_ATTEMPTS_NOTICE] : [],
  };
}

/**
 * The event prefix beside the lease prefix. Lease keys are arbitrary strings under the lease prefix, so events can
 * never live under it; they go next to it, in the same application folder, so one etcd role can grant both:
 * - a prefix with a parent folder has its last segment replaced by `events`: `'mastra/lease/'` → `'mastra/events/'`,
 *   `'myapp/lease'` → `'myapp/events/'`;
 * - a folder of one segment, or one whose last segment is `events` already, gets `-events` on that segment:
 *   `'myapp/'` → `'myapp-events/'`, `'/myapp/'` → `'/myapp-events/'`, `'a/events/'` → `'a/events-events/'`. The
 *   sibling `'events/'` would be the same for every application on the cluster, and they would read each other's
 *   events; `'myapp-events/'` is this one's, and a role on the key prefix `'myapp'` covers both.
 * A prefix of one segment without a trailing `/` (`'myapp'`) has no derivation: every key starting with `myapp` is a
 * lease key. The caller then names `eventPrefix`.
 */
export function deriveEventPrefix(leasePrefix: string): string {
  const folder = leasePrefix.endsWith('/') ? leasePrefix.slice(0, -1) : leasePrefix;
  const cut = folder.lastIndexOf('/');
  const parent = folder.slice(0, cut + 1);
  const last = folder.slice(cut + 1);
  if (cut > 0 && last !== 'events') return `${parent}events/`;
  if (leasePrefix.endsWith('/') && last !== '') return `${parent}${last}-events/`;
  throw new LeaseArgumentTypeError(
    'options.eventPrefix',
    `required: every key starting with the lease prefix '${leasePrefix}' is a lease key, so no event prefix can be derived beside it (end the prefix with '/': 'myapp/' gives 'myapp-events/', 'myapp/lease/' gives 'myapp/events/')`,
  );
}

/** Mastra's Redis Streams backend reads 0 as no cap and warns; so does this one, so that the value carried over keeps its meaning and is seen. */
const ZERO_ATTEMPTS_NOTICE = 'maxDeliveryAttempts: 0 means no cap (a nacked event is offered again forever); pass Infinity to say so explicitly';

/**
 * `maxDeliveryAttempts`: a whole number ≥ 1, or `Infinity`. 0 means unlimited too, as Mastra's Redis Streams
 * backend reads it, so a value carried over from it keeps its meaning.
 */
function deliveryAttempts(value: unknown): number {
  if (value === 0 || value === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  return whole('options.maxDeliveryAttempts', value, 1);
}

/** `ackDeadlineMs` is the former name: read when `inFlightTimeoutMs` is not given, and then named in the error. */
function inFlightTimeout(options: EtcdPubSubEventOptions): number {
  if (options.inFlightTimeoutMs === undefined && options.ackDeadlineMs !== undefined) return atLeast('options.ackDeadlineMs', options.ackDeadlineMs, 0);
  return atLeast('options.inFlightTimeoutMs', options.inFlightTimeoutMs ?? EVENT_DEFAULTS.inFlightTimeoutMs, 0);
}

function atLeast(parameter: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new LeaseArgumentRangeError(parameter, `must be a finite number of at least ${min}, got ${String(value)}`);
  }
  return value;
}

function whole(parameter: string, value: unknown, min: number): number {
  const n = atLeast(parameter, value, min);
  if (!Number.isInteger(n)) throw new LeaseArgumentRangeError(parameter, `must be a whole number, got ${n}`);
  return n;
}
