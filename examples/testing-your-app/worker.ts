/**
 * One process of the app under test: its own Mastra with one agent on a mock model, events and leases on EtcdPubSub.
 * The parent (chaos.test.ts) tells it which messages to send; it reports every model turn and every lease call.
 *
 * Environment: ETCD_ENDPOINTS (comma-separated), PREFIX (this run's etcd prefix), WORKER (this process's name).
 */
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { EtcdPubSub } from 'etcd-lease-provider/mastra';
import { machineClock, recordLeaseCalls } from 'etcd-lease-provider/testing';

const worker = process.env.WORKER!;
const report = (message: object) => process.send?.({ worker, at: machineClock(), ...message });

// Every lease call Mastra makes goes through the recorder; each record goes to the parent as it happens, so the
// parent holds the history even of a process that dies.
const pubsub = recordLeaseCalls(
  new EtcdPubSub({ hosts: process.env.ETCD_ENDPOINTS!.split(','), prefix: `${process.env.PREFIX}leases/`, eventPrefix: `${process.env.PREFIX}events/` }),
  { client: worker, onRecord: (op) => report({ type: 'lease-call', op }) },
);

/** A language model that answers every prompt with one text part, and says which user messages it saw. */
const mockModel = {
  specificationVersion: 'v2' as const,
  provider: 'mock',
  modelId: 'mock',
  supportedUrls: {},
  async doGenerate(): Promise<never> {
    throw new Error('the mock model only streams');
  },
  async doStream({ prompt }: { prompt: Array<{ role: string; content: unknown }> }) {
    const texts = prompt
      .filter((m) => m.role === 'user' && Array.isArray(m.content))
      .flatMap((m) => (m.content as Array<{ type: string; text?: string }>).filter((p) => p.type === 'text').map((p) => p.text!));
    report({ type: 'turn-start', texts });
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'text-start', id: 't' });
        controller.enqueue({ type: 'text-delta', id: 't', delta: `ok: ${texts.join(', ')}` });
        controller.enqueue({ type: 'text-end', id: 't' });
        controller.enqueue({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } });
        controller.close();
        report({ type: 'turn-end', texts });
      },
    });
    return { stream };
  },
};

const agent = new Agent({ id: 'support', name: 'support', instructions: 'Answer briefly.', model: mockModel });
const mastra = new Mastra({ agents: { agent }, pubsub, logger: false });

process.on('message', async (message: { text: string; threadId: string } | 'exit') => {
  if (message === 'exit') {
    await mastra.shutdown().catch(() => {});
    await pubsub.close();
    process.exit(0);
  }
  try {
    const accepted = await mastra.getAgent('agent').sendMessage(message.text, { resourceId: 'user-1', threadId: message.threadId }).accepted;
    report({ type: 'accepted', text: message.text, action: accepted.action });
    if (accepted.action === 'wake') await accepted.output.consumeStream();
  } catch (error) {
    // The caller learns the message was refused (etcd out of reach past the provider's deadline) and may resend it.
    report({ type: 'refused', text: message.text, threadId: message.threadId, error: String(error) });
  }
});
process.on('disconnect', () => process.exit(0));
report({ type: 'ready' });
