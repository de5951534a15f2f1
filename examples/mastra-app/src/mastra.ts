import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';

// In your app: import { EtcdPubSub } from 'etcd-lease-provider/mastra';
import { EtcdPubSub } from '../../../src/mastra/index.js';
import type { AppConfig } from './config.js';
import { echoModel } from './echo-model.js';

/**
 * The whole integration is the `pubsub:` line: Mastra's events between instances (a message that
 * reaches an instance not owning the thread is forwarded to the owner's run, token streams reach
 * observers on any instance, workers share their queues) and each thread's lease (who runs it)
 * both live in etcd. No socket, no request routing, no Redis. Mastra's own storage is not configured here, so
 * each instance keeps it in memory (Mastra warns at start): this agent has no memory and nothing here suspends a
 * workflow for another instance to resume. An app that does either gives `new Mastra` a shared `storage`.
 */
export function createMastra(config: AppConfig) {
  const pubsub = new EtcdPubSub({
    ...config.etcd,
    onAcquireError: config.onAcquireError,
    // Mastra swallows renewal and release failures; this is where they become visible.
    onLeaseError: (error, operation, key) =>
      console.warn(JSON.stringify({ msg: 'lease operation failed', operation, key: JSON.stringify(key), error: String(error) })),
  });

  const assistant = new Agent({
    id: 'assistant',
    name: 'assistant',
    instructions: 'You are a concise assistant.',
    model: config.model ?? echoModel(config.echoDelayMs),
  });

  const mastra = new Mastra({ agents: { assistant }, pubsub });
  return {
    mastra,
    pubsub,
    /** Mastra's shutdown leaves the pubsub open: close it (events, leases, the etcd client) afterwards. */
    async close() {
      await mastra.shutdown();
      await pubsub.close();
    },
  };
}
