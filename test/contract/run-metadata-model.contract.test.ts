import { vi } from 'vitest';
import { leaseContract } from './lease-contract.js';
import { RunMetadataModel } from './run-metadata-model.js';

// The TTL cases wait out real 2.5 s leases (up to ttl + slack + the 5 s expiry poll): more than a unit test's 5 s.
vi.setConfig({ testTimeout: 20_000 });

// The metadata variant's anchor: an in-memory model of the run-metadata extension (no Mastra has it; its
// EventEmitterPubSub has no metadata). The suite must hold for it as it does for the etcd provider; a check that only etcd passes is a check
// of etcd's quirks, not of the contract.
leaseContract('RunMetadataModel (anchor)', {
  clients: async (count) => {
    const model = new RunMetadataModel();
    return Array.from({ length: count }, () => model);
  },
  ttlMs: 2500,
  expirySlackMs: 100,
  metadata: true,
});
