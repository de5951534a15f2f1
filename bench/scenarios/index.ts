import { etcdLock } from './etcd-lock.js';
import { leasePerKey } from './lease-per-key.js';
import { baselineAcquire, providerAcquire } from './provider-acquire.js';
import { providerMixed } from './provider-mixed.js';
import { rawAcquireBatch, rawAcquireShape } from './raw-acquire-shape.js';
import { rawMinimalBatch } from './raw-minimal-batch.js';
import { rawTxn } from './raw-txn.js';
import { redisSetNx } from './redis-set-nx.js';
import type { Scenario } from './scenario.js';

/**
 * Every scenario, in the order a round runs them (odd rounds run it backwards, see schedule.ts).
 * What the targets compare sits side by side so that each pair runs seconds apart: the raw Txn, the
 * provider's transaction sent raw, and the provider at one caller; the raw Txn ×64, the perfect batches 1×64 (the
 * minimal acquire shape the targets are judged against, and the provider's own shape) and the provider ×64; the
 * provider ×256 and the perfect batches 4×64 (the same keys in flight); Redis ×64 right after the provider phases.
 * `withBaseline`: an earlier build's acquire rows beside the provider's own (BENCH_BASELINE_DIST).
 */
export function allScenarios(withBaseline = false): Scenario[] {
  const baseline = (callers: number) => (withBaseline ? [baselineAcquire(callers)] : []);
  return [
    rawTxn(1),
    rawAcquireShape(1),
    providerAcquire(1),
    rawTxn(1, true),
    ...baseline(1),
    leasePerKey(1),
    etcdLock(1),
    redisSetNx(1),
    rawTxn(64),
    rawMinimalBatch(1, 64),
    rawAcquireBatch(1, 64),
    providerAcquire(64),
    rawMinimalBatch(1, 64, true),
    ...baseline(64),
    ...baseline(256),
    providerAcquire(256),
    rawMinimalBatch(4, 64),
    rawMinimalBatch(4, 64, true),
    rawAcquireBatch(4, 64),
    providerMixed(64),
    redisSetNx(64),
    leasePerKey(64),
    etcdLock(64),
  ];
}
