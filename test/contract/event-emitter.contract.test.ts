import { EventEmitterPubSub } from '@mastra/core/events';
import { leaseContract } from './lease-contract.js';

// The anchor: Mastra's own in-memory provider. The shared contract must hold for it unchanged.
leaseContract('EventEmitterPubSub (anchor)', {
  provider: async () => new EventEmitterPubSub(),
  ttlMs: 2500,
  expirySlackMs: 100,
});
