import { LeaseClock } from '../../../src/clock/lease-clock.js';
import { OPERATIONS, type OperationSet } from '../../../src/calls/operation-set.js';
import { put } from '../../../src/operations/etcd-txn.js';
import { createLeaseProvider } from '../../../src/provider.js';
import type { ProviderFactory } from '../provider-under-test.js';

// Breaks mutual exclusion outright: acquire writes the key without any compare, so every acquire wins.
const BLIND_PUT: OperationSet['acquire'] = {
  txn: (key, value, lease) => ({ compare: [], success: [put(key, value, lease)], failure: [] }),
  decode: (outcome) => ({ kind: 'written', revision: outcome.revision }),
};

export const blindPutAcquire: ProviderFactory = (options, clock) =>
  createLeaseProvider(options, { clock: new LeaseClock(clock), operations: { ...OPERATIONS, acquire: BLIND_PUT } });
