import type { PublishMode, PublishedEvent } from '../pubsub/options.js';

/** Topic prefix of Mastra's agent-thread events (`agent.thread-stream.<thread key>`, @mastra/core 1.71). */
const THREAD_TOPIC = 'agent.thread-stream.';

/**
 * A `publishMode` that keeps token streams cheap: Mastra's per-chunk `stream-part` events on thread topics go
 * write-behind (one etcd write per topic per `writeBehindFlushMs` instead of one per chunk), everything else —
 * run lifecycle, routed messages, owner discovery — stays durable. Order within the thread topic is kept.
 *
 * What it gives up: a chunk publish resolves before it is in etcd, so a crash loses up to `writeBehindFlushMs` of
 * chunks (the run dies with it anyway), and a failed flush is logged instead of failing the run's broadcast.
 */
export function streamPartsWriteBehind(topic: string, event: PublishedEvent): PublishMode {
  return event.type === 'stream-part' && topic.startsWith(THREAD_TOPIC) ? 'write-behind' : 'durable';
}
