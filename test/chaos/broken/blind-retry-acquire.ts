import { LeaseClock } from '../../../src/clock/lease-clock.js';
import { OPERATIONS, type OperationSet } from '../../../src/calls/operation-set.js';
import { put } from '../../../src/operations/etcd-txn.js';
import { createLeaseProvider } from '../../../src/provider.js';
import type { ProviderFactory } from '../provider-under-test.js';

/**
 * Breaks idempotent retry: an acquire whose attempt got no answer retries with a blind put, as if the first
 * attempt's compare had already shown the key free — but that attempt's outcome is unknown, so the retry takes
 * the key from whoever holds it. Only retries are blind: without a fault this provider is the real one.
 *
 * An acquire transaction built for a value (owner and metadata) whose previous acquire transaction was never
 * decoded is a retry after an unanswered attempt. The chaos holders use a fresh owner for every acquire they
 * start, and a provider's calls on one key run one at a time (KeyLanes), so nothing else looks like a retry.
 */
function blindRetries(): OperationSet['acquire'] {
  const unanswered = new Set<string>();
  const blind = new Set<string>();
  return {
    txn: (key, value, lease, own) => {
      const id = value.toString('latin1');
      if (!unanswered.has(id)) {
        unanswered.add(id);
        return OPERATIONS.acquire.txn(key, value, lease, own);
      }
      blind.add(id);
      return { compare: [], success: [put(key, value, lease)], failure: [] };
    },
    decode: (outcome, value) => {
      const id = value.toString('latin1');
      unanswered.delete(id);
      if (!blind.delete(id)) return OPERATIONS.acquire.decode(outcome, value);
      return { kind: 'written', revision: outcome.revision };
    },
  };
}

export const blindRetryAcquire: ProviderFactory = (options, clock) =>
  createLeaseProvider(options, { clock: new LeaseClock(clock), operations: { ...OPERATIONS, acquire: blindRetries() } });
