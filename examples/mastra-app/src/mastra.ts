import { Agent } from '@mastra/core/agent';
import { UnixSocketPubSub } from '@mastra/core/events';
import { Mastra } from '@mastra/core/mastra';

// In your app: import { withEtcdLeases } from 'etcd-lease-provider/mastra';
import { withEtcdLeases } from '../../../src/mastra/index.js';
import type { AppConfig } from './config.js';
import { echoModel } from './echo-model.js';

/**
 * The whole integration is the `pubsub:` line: events keep their transport, thread leases
 * go to etcd. Every instance must share the event transport too, or a message that reaches an
 * instance not owning the thread cannot be forwarded to the owner. `UnixSocketPubSub` is shared
 * by the processes of one host (or one pod); across hosts, put a networked Mastra PubSub here.
 */
export function createMastra(config: AppConfig) {
  const pubsub = withEtcdLeases(new UnixSocketPubSub(config.eventsSocket), config.etcd, {
    onAcquireError: config.onAcquireError,
    // Mastra swallows renewal and release failures; this is where they become visible.
    onLeaseError: (error, operation, key) =>
      console.warn(JSON.stringify({ msg: 'lease operation failed', operation, key: JSON.stringify(key), error: String(error) })),
  });

  const assistant = new Agent({
    id: 'assistant',
    name: 'assistant',
    instructions: 'You are a concise assistant.',
    model: config.model ?? echoModel(),
  });

  const mastra = new Mastra({ agents: { assistant }, pubsub });
  return {
    mastra,
    pubsub,
    /** Mastra's shutdown leaves the pubsub open: close it (and the etcd client) afterwards. */
    async close() {
      await mastra.shutdown();
      await pubsub.close();
    },
  };
}
