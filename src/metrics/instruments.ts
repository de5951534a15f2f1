import { ValueType, type Counter, type Histogram, type Meter, type ObservableGauge, type UpDownCounter } from '@opentelemetry/api';

export { METER_NAME, METER_VERSION } from './meter-scope.js';

/**
 * Metric names (the keys are the code's handles; the values what a backend shows), after OpenTelemetry's naming conventions: dot-separated, under one namespace of this package
 * (`lease_provider.`: what the component is in Mastra's terms; not `etcd.`, which reads as etcd's own server metrics,
 * nor `mastra.`, which is Mastra's), the unit in the instrument's `unit` rather than in the name, no `_total`.
 * Exporters render them in their own style: OpenTelemetry's JavaScript Prometheus exporter turns dots into underscores
 * and adds `_total` to counters (`lease_provider.contentions` → `lease_provider_contentions_total`); docs/metrics.md
 * shows its whole output.
 * Attributes are low-cardinality only: never a lease key or owner, which would make one time series per lease.
 */
export const METRIC = {
  acquireDuration: 'lease_provider.acquire.duration',
  contention: 'lease_provider.contentions',
  lost: 'lease_provider.losses',
  batchSize: 'lease_provider.batch.size',
  circuitState: 'lease_provider.circuit.state',
  waiters: 'lease_provider.waiter.count',
  holds: 'lease_provider.hold.count',
} as const;

/** Numeric value of `lease_provider.circuit.state`. */
export const CIRCUIT_STATE_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

/** Latency buckets for one acquire: a loopback Txn takes ~1.5 ms, a call may retry up to its deadline (5 s). */
const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Group-commit batches are 1 to `maxBatchSize` (128 by default; etcd's default --max-txn-ops admits 127 acquires). */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128];

/** `result` of an acquire; a failed one also carries `error.type` (errors/…: the error's `code`). */
type AcquireAttributes = { result: 'acquired' | 'contended' } | { result: 'error'; 'error.type': string };
/** Where an etcd endpoint is (OpenTelemetry's `server.address` and `server.port`). */
export type ServerAttributes = { 'server.address': string; 'server.port'?: number };

export interface Instruments {
  acquireDuration: Histogram<AcquireAttributes>;
  contention: Counter;
  /** attributes: `reason` = a `LeaseLossReason` */
  lost: Counter<{ reason: string }>;
  batchSize: Histogram;
  /** one series per etcd endpoint; value per `CIRCUIT_STATE_VALUE` */
  circuitState: ObservableGauge<ServerAttributes>;
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
      description: 'Acquire calls that found the lease held by another owner',
      unit: '{acquire}',
      valueType: ValueType.INT,
    }),
    lost: meter.createCounter(METRIC.lost, {
      description: 'Leases their holder learned it had lost, by reason',
      unit: '{lease}',
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
      unit: '{waiter}',
      valueType: ValueType.INT,
    }),
    holds: meter.createUpDownCounter(METRIC.holds, {
      description: 'Lease handles (from hold) currently held and renewed',
      unit: '{hold}',
      valueType: ValueType.INT,
    }),
  };
}

/** Metric names of `EtcdPubSub` (same meter, same conventions). Attributes are fixed enums: never a topic, group or event id. */
export const PUBSUB_METRIC = {
  publishDuration: 'lease_provider.pubsub.publish.duration',
  events: 'lease_provider.pubsub.events',
  redeliveries: 'lease_provider.pubsub.redeliveries',
  dropped: 'lease_provider.pubsub.dropped_events',
  watchResumes: 'lease_provider.pubsub.watch.resumes',
  writeBehindFailures: 'lease_provider.pubsub.write_behind.failures',
  compactionMissing: 'lease_provider.pubsub.compaction.missing',
} as const;

export type RedeliveryReason = 'nack' | 'member-lost' | 'in-flight-timeout';
type DropReason = 'max-attempts' | 'oversize-replay' | 'compacted' | 'backlog-expired';
export type WatchResumeReason = 'reconnect' | 'compacted' | 'stalled' | 'oversize';

export interface PubSubInstruments {
  /** `result` = `ok` | `error` (with `error.type`); durable publishes only (write-behind ones resolve before etcd answers) */
  publishDuration: Histogram<{ result: 'ok' } | { result: 'error'; 'error.type': string }>;
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
    events: meter.createCounter(PUBSUB_METRIC.events, { description: 'Events published to etcd and delivered to callbacks', unit: '{event}', valueType: ValueType.INT }),
    redeliveries: meter.createCounter(PUBSUB_METRIC.redeliveries, { description: 'Events delivered again, by reason', unit: '{event}', valueType: ValueType.INT }),
    dropped: meter.createCounter(PUBSUB_METRIC.dropped, { description: 'Events given up on, by reason', unit: '{event}', valueType: ValueType.INT }),
    watchResumes: meter.createCounter(PUBSUB_METRIC.watchResumes, { description: 'Watch streams resumed, by reason', unit: '{resume}', valueType: ValueType.INT }),
    writeBehindFailures: meter.createCounter(PUBSUB_METRIC.writeBehindFailures, {
      description: 'Write-behind batches that could not be written (their events never reach other processes)',
      unit: '{batch}',
      valueType: ValueType.INT,
    }),
    compactionMissing: meter.createObservableGauge(PUBSUB_METRIC.compactionMissing, {
      description: '1 when etcd was found not compacting its history (its db grows until the space quota), else 0',
      valueType: ValueType.INT,
    }),
  };
}
