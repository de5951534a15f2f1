import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A model that answers without a network: it echoes the last user message. Lets the example
 * run anywhere; set MASTRA_MODEL (e.g. `openai/gpt-4o-mini`) to use a real one.
 * Shaped as an AI SDK v5 language model (`specificationVersion: 'v2'`).
 * It takes `delayMs` before it answers, as a real model does: long enough for a second message, sent by hand while
 * the run still holds the thread, to be delivered to that run rather than wake a new one.
 */
export function echoModel(delayMs = 0) {
  return {
    specificationVersion: 'v2' as const,
    provider: 'example',
    modelId: 'echo',
    supportedUrls: {},
    async doGenerate(): Promise<never> {
      throw new Error('echo model: streaming only');
    },
    async doStream({ prompt, abortSignal }: { prompt: { role: string; content: unknown }[]; abortSignal?: AbortSignal }) {
      if (delayMs > 0) await sleep(delayMs, undefined, { signal: abortSignal }).catch(() => undefined);
      const lastUser = [...prompt].reverse().find((message) => message.role === 'user');
      const parts = Array.isArray(lastUser?.content) ? (lastUser.content as { type: string; text?: string }[]) : [];
      const text = `echo: ${parts.map((part) => part.text ?? '').join(' ')}`;
      return {
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: text });
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } });
            controller.close();
          },
        }),
      };
    },
  };
}
