import { ValueType, type Counter, type Histogram, type Meter, type ObservableGauge, type UpDownCounter } from '@opentelemetry/api';

/** Instrumentation scope name: `metrics.getMeter(METER_NAME)`. */
export const METER_NAME = 'etcd-lease-provider';

/**
 * Metric names, Prometheus-style (snake case, base units, `_total` on counters) so an OpenTelemetry
 * Prometheus exporter keeps them as they are. Attributes are low-cardinality enums only: never a lease
 * key or owner, which would make one time series per lease.
 */
export const METRIC = {
  acquireDuration: 'etcd_lease_acquire_duration_seconds',
  contention: 'etcd_lease_contention_total',
  lost: 'etcd_lease_lost_total',
  batchSize: 'etcd_lease_batch_size',
  circuitState: 'etcd_lease_circuit_state',
  waiters: 'etcd_lease_waiters',
  holds: 'etcd_lease_holds',
} as const;

/** Numeric value of `etcd_lease_circuit_state`. */
export const CIRCUIT_STATE_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

/** Latency buckets for one acquire: a loopback Txn takes ~1.5 ms, a call may retry up to its deadline (5 s). */
const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Group-commit batches are 1 to `maxBatchSize` (64 by default, at most 128: etcd's --max-txn-ops). */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128];

export interface Instruments {
  /** attributes: `result` = `acquired` | `contended` | `error` */
  acquireDuration: Histogram<{ result: 'acquired' | 'contended' | 'error' }>;
  contention: Counter;
  /** attributes: `reason` = a `LeaseLossReason` */
  lost: Counter<{ reason: string }>;
  batchSize: Histogram;
  /** attributes: `endpoint` = an etcd endpoint; value per `CIRCUIT_STATE_VALUE` */
  circuitState: ObservableGauge<{ endpoint: string }>;
  waiters: UpDownCounter;
  holds: UpDownCounter;
}

export function createInstruments(meter: Meter): Instruments {
  return {
    acquireDuration: meter.createHistogram(METRIC.acquireDuration, {
      description: 'Duration of one acquire call (retries included), by result',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
    }),
    contention: meter.createCounter(METRIC.contention, {
      description: 'Acquire calls and attempts that found the lease held by another owner',
      valueType: ValueType.INT,
    }),
    lost: meter.createCounter(METRIC.lost, {
      description: 'Leases their holder learned it had lost, by reason',
      valueType: ValueType.INT,
    }),
    batchSize: meter.createHistogram(METRIC.batchSize, {
      description: 'Operations carried by one group-commit transaction',
      unit: '{operation}',
      valueType: ValueType.INT,
      advice: { explicitBucketBoundaries: BATCH_BUCKETS },
    }),
    circuitState: meter.createObservableGauge(METRIC.circuitState, {
      description: 'Circuit breaker state per etcd endpoint: 0 closed, 1 half-open, 2 open',
      valueType: ValueType.INT,
    }),
    waiters: meter.createUpDownCounter(METRIC.waiters, {
      description: 'Calls of waitForLease and hold currently waiting for a lease',
      valueType: ValueType.INT,
    }),
    holds: meter.createUpDownCounter(METRIC.holds, {
      description: 'Lease handles (from hold) currently held and renewed',
      valueType: ValueType.INT,
    }),
  };
}

/** Metric names of `EtcdPubSub` (same meter). Labels are fixed enums: never a topic, group or event id. */
export const PUBSUB_METRIC = {
  publishDuration: 'etcd_pubsub_publish_duration_seconds',
  events: 'etcd_pubsub_events_total',
  redeliveries: 'etcd_pubsub_redeliveries_total',
  dropped: 'etcd_pubsub_dropped_total',
  watchResumes: 'etcd_pubsub_watch_resumes_total',
  writeBehindFailures: 'etcd_pubsub_write_behind_failures_total',
  compactionMissing: 'etcd_pubsub_compaction_missing',
} as const;

export type RedeliveryReason = 'nack' | 'member-lost' | 'in-flight-timeout';
export type DropReason = 'max-attempts' | 'oversize-replay' | 'compacted';
export type WatchResumeReason = 'reconnect' | 'compacted' | 'stalled' | 'oversize';

export interface PubSubInstruments {
  /** attributes: `result` = `ok` | `error`; durable publishes only (write-behind ones resolve before etcd answers) */
  publishDuration: Histogram<{ result: 'ok' | 'error' }>;
  /** attributes: `direction` = `published` (committed to etcd) | `delivered` (handed to a callback) */
  events: Counter<{ direction: 'published' | 'delivered' }>;
  redeliveries: Counter<{ reason: RedeliveryReason }>;
  dropped: Counter<{ reason: DropReason }>;
  watchResumes: Counter<{ reason: WatchResumeReason }>;
  writeBehindFailures: Counter;
  /** 1 while the last compaction check found etcd not compacting, else 0 */
  compactionMissing: ObservableGauge;
}

export function createPubSubInstruments(meter: Meter): PubSubInstruments {
  return {
    publishDuration: meter.createHistogram(PUBSUB_METRIC.publishDuration, {
      description: 'Duration of one durable publish, from the call until etcd committed it (or it failed)',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
    }),
    events: meter.createCounter(PUBSUB_METRIC.events, { description: 'Events published to etcd and delivered to callbacks', valueType: ValueType.INT }),
    redeliveries: meter.createCounter(PUBSUB_METRIC.redeliveries, { description: 'Events delivered again, by reason', valueType: ValueType.INT }),
    dropped: meter.createCounter(PUBSUB_METRIC.dropped, { description: 'Events given up on, by reason', valueType: ValueType.INT }),
    watchResumes: meter.createCounter(PUBSUB_METRIC.watchResumes, { description: 'Watch streams resumed, by reason', valueType: ValueType.INT }),
    writeBehindFailures: meter.createCounter(PUBSUB_METRIC.writeBehindFailures, {
      description: 'Write-behind batches that could not be written (their events never reach other processes)',
      valueType: ValueType.INT,
    }),
    compactionMissing: meter.createObservableGauge(PUBSUB_METRIC.compactionMissing, {
      description: '1 when etcd was found not compacting its history (its db grows until the space quota), else 0',
      valueType: ValueType.INT,
    }),
  };
}
