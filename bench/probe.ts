import type { Etcd3 } from 'etcd3';
import type { EtcdLeaseProvider } from '../src/index.js';
import type { ClockMoment } from '../src/clock/lease-clock.js';
import { chooseLease, reachAfter, type PooledLease } from '../src/leases/lease-choice.js';

/** What the provider did under one scenario: is group commit batching, is the pool off the hot path? */
export interface ProbeCounts {
  /** Transactions sent to etcd. */
  txns: number;
  /** Operations those transactions carried (a plain txn carries 1, a batch its number of nested sub-txns). */
  ops: number;
  /** Batch-size histogram; keys are the upper bound of each bin. */
  batchSizes: Record<string, number>;
  /** LeaseGrant RPCs (background prefetch and blocking alike). */
  grants: number;
  /** Lease lookups that found no fitting pooled lease and so had to wait for a LeaseGrant. */
  blockingLeaseLookups: number;
  leaseLookups: number;
}

const BINS = [1, 2, 4, 8, 16, 32, 64, 128] as const;

/**
 * Counts what one provider sends, by wrapping methods of its own etcd client and lease pool.
 *
 * This reaches into private fields on purpose: it is a diagnostic for the benchmark report, not an
 * API. If the fields are renamed the probe says "unavailable" and the benchmark still runs.
 * The wrappers only increment counters, so they cost nothing measurable next to an RPC.
 */
export class ProviderProbe {
  private counts = emptyCounts();
  readonly available: boolean;

  constructor(provider: EtcdLeaseProvider) {
    const internals = provider as unknown as {
      client?: Etcd3;
      pool?: { leaseFor?: (ttlMs: number, sent: ClockMoment | number) => Promise<string>; leases?: Map<string, PooledLease>; bucketMs?: number };
    };
    const client = internals.client;
    const pool = internals.pool;
    if (!client?.kv?.txn || !client.leaseClient?.leaseGrant || !pool?.leaseFor || !(pool.leases instanceof Map) || typeof pool.bucketMs !== 'number') {
      this.available = false;
      return;
    }
    this.available = true;
    const kv = client.kv;
    const txn = kv.txn.bind(kv);
    kv.txn = (request, options) => {
      // The committer sends a batch as a txn with no compares and only nested sub-transactions.
      const success = request.success ?? [];
      const batched = (request.compare ?? []).length === 0 && success.length > 0 && success.every((op) => op.request_txn);
      this.recordTxn(batched ? success.length : 1);
      return txn(request, options);
    };
    const leaseClient = client.leaseClient;
    const grant = leaseClient.leaseGrant.bind(leaseClient);
    leaseClient.leaseGrant = (request, options) => {
      this.counts.grants++;
      return grant(request, options);
    };
    const leaseFor = pool.leaseFor.bind(pool);
    const leases = pool.leases;
    const bucketMs = pool.bucketMs;
    pool.leaseFor = (ttlMs, sent) => {
      // The pool's own rule for "a ready lease fits": if none does, this call waits on a grant.
      this.counts.leaseLookups++;
      // A baseline build measured side by side may predate the clock's steady scale: its times are one number.
      const moment = typeof sent === 'number' ? { at: sent, steady: sent } : sent;
      const pooled = [...leases.values()].map((l) => ({ ...l, steadyNotBefore: l.steadyNotBefore ?? l.notBefore }));
      if (!chooseLease(pooled, reachAfter(moment, ttlMs), bucketMs)) this.counts.blockingLeaseLookups++;
      return leaseFor(ttlMs, sent);
    };
  }

  /** Counts since the last call, and starts counting afresh. */
  take(): ProbeCounts {
    const counts = this.counts;
    this.counts = emptyCounts();
    return counts;
  }

  private recordTxn(size: number): void {
    this.counts.txns++;
    this.counts.ops += size;
    const bin = String(BINS.find((b) => size <= b) ?? 'more');
    this.counts.batchSizes[bin] = (this.counts.batchSizes[bin] ?? 0) + 1;
  }
}

export function emptyCounts(): ProbeCounts {
  return { txns: 0, ops: 0, batchSizes: {}, grants: 0, blockingLeaseLookups: 0, leaseLookups: 0 };
}

/** Adds up the probe counts of several runs of one scenario. */
export function addCounts(a: ProbeCounts, b: ProbeCounts): ProbeCounts {
  const batchSizes = { ...a.batchSizes };
  for (const [bin, n] of Object.entries(b.batchSizes)) batchSizes[bin] = (batchSizes[bin] ?? 0) + n;
  return {
    txns: a.txns + b.txns,
    ops: a.ops + b.ops,
    batchSizes,
    grants: a.grants + b.grants,
    blockingLeaseLookups: a.blockingLeaseLookups + b.blockingLeaseLookups,
    leaseLookups: a.leaseLookups + b.leaseLookups,
  };
}

