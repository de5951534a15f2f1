import { EventEmitterPubSub } from '@mastra/core/events';
import { vi } from 'vitest';
import { leaseContract } from './lease-contract.js';

// The TTL cases wait out real 2.5 s leases (up to ttl + slack + the 5 s expiry poll): more than a unit test's 5 s.
vi.setConfig({ testTimeout: 20_000 });

// The anchor: Mastra's own in-memory provider (1.71, no run metadata). The shared contract must hold for it
// unchanged; every "client" is the same instance, since its leases live in its memory.
leaseContract('EventEmitterPubSub (anchor)', {
  clients: async (count) => {
    const pubsub = new EventEmitterPubSub();
    return Array.from({ length: count }, () => pubsub);
  },
  ttlMs: 2500,
  expirySlackMs: 100,
});
