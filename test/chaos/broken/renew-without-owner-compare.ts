import { CompareResult, CompareTarget } from 'etcd3';
import { LeaseClock } from '../../../src/clock/lease-clock.js';
import { OPERATIONS, type OperationSet } from '../../../src/calls/operation-set.js';
import { put } from '../../../src/operations/etcd-txn.js';
import { createLeaseProvider } from '../../../src/provider.js';
import type { ProviderFactory } from '../provider-under-test.js';

// Breaks the owner check: renew rewrites any existing key with the caller as owner, taking it from whoever holds it.
const RENEW_ANY_HOLDER: OperationSet['renew'] = {
  txn: (key, value, lease) => ({
    compare: [{ key, target: CompareTarget.Create, result: CompareResult.Greater, create_revision: 0 }],
    success: [put(key, value, lease)],
    failure: [],
  }),
  decode: (outcome) => (outcome.succeeded ? { kind: 'written', revision: outcome.revision } : { kind: 'not-held' }),
};

export const renewWithoutOwnerCompare: ProviderFactory = (options, clock) =>
  createLeaseProvider(options, { clock: new LeaseClock(clock), operations: { ...OPERATIONS, renew: RENEW_ANY_HOLDER } });
