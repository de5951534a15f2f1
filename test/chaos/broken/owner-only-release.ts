import { LeaseClock } from '../../../src/clock/lease-clock.js';
import { OPERATIONS, type OperationSet } from '../../../src/calls/operation-set.js';
import { read, remove, valueIs } from '../../../src/operations/etcd-txn.js';
import { createLeaseProvider } from '../../../src/provider.js';
import type { ProviderFactory } from '../provider-under-test.js';

// Breaks rule 3: release compares only the owner, so a late release deletes a later tenure of the same owner string.
const OWNER_ONLY_RELEASE: OperationSet['release'] = {
  txn: (key, value) => ({ compare: [valueIs(key, value)], success: [remove(key)], failure: [read(key)] }),
  decode: OPERATIONS.release.decode,
};

export const ownerOnlyRelease: ProviderFactory = (options, clock) =>
  createLeaseProvider(options, { clock: new LeaseClock(clock), operations: { ...OPERATIONS, release: OWNER_ONLY_RELEASE } });
