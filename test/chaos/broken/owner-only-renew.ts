import { LeaseClock } from '../../../src/clock/lease-clock.js';
import { OPERATIONS, type OperationSet } from '../../../src/calls/operation-set.js';
import { put, rangeValue, read, valueIs } from '../../../src/operations/etcd-txn.js';
import { createLeaseProvider } from '../../../src/provider.js';
import type { ProviderFactory } from '../provider-under-test.js';

// Breaks rule 1: renew compares only the owner and puts the key on the call's lease, so a late renew moves it back onto an earlier-ending lease.
export const OWNER_ONLY_RENEW: OperationSet['renew'] = {
  txn: (key, value, lease) => ({ compare: [valueIs(key, value)], success: [put(key, value, lease)], failure: [read(key)] }),
  decode: (outcome) => {
    if (outcome.succeeded) return { kind: 'written', revision: outcome.revision };
    const kv = rangeValue(outcome);
    return kv === undefined ? { kind: 'not-held' } : { kind: 'not-held', kv };
  },
};

export const ownerOnlyRenew: ProviderFactory = (options, clock) =>
  createLeaseProvider(options, { clock: new LeaseClock(clock), operations: { ...OPERATIONS, renew: OWNER_ONLY_RENEW } });
