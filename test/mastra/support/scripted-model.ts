/**
 * A deterministic stand-in for a language model, in the shape `@mastra/core` accepts as an
 * AI SDK v5 (`specificationVersion: 'v2'`) model: no network, no tokens, one text reply.
 *
 * Each `doStream` call is one model turn of an agent run. The texts of the user messages in
 * the prompt tell which sent messages the turn carries; `hold` lets a test keep the turn open
 * until it decides to let it finish, so no test has to guess how long a run takes.
 */
export interface ModelTurn {
  /** Sequence number of this turn within the model instance, from 1. */
  seq: number;
  /** Texts of the user messages in the prompt, in prompt order. */
  texts: string[];
}

export interface ScriptedModelHooks {
  /** Called when a turn starts, before `hold`. */
  onTurnStart?(turn: ModelTurn): void;
  /** Resolves when the turn may produce its reply. Default: immediately. */
  hold?(turn: ModelTurn): Promise<void>;
  /** Called after the reply's last part has been enqueued and the stream closed. */
  onTurnEnd?(turn: ModelTurn): void;
}

interface PromptMessage {
  role: string;
  content: unknown;
}

function userTexts(prompt: unknown): string[] {
  if (!Array.isArray(prompt)) return [];
  const texts: string[] = [];
  for (const message of prompt as PromptMessage[]) {
    if (message.role !== 'user' || !Array.isArray(message.content)) continue;
    for (const part of message.content as { type?: string; text?: string }[]) {
      if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    }
  }
  return texts;
}

export function createScriptedModel(hooks: ScriptedModelHooks = {}) {
  let seq = 0;
  return {
    specificationVersion: 'v2' as const,
    provider: 'scripted',
    modelId: 'scripted-model',
    supportedUrls: {},
    async doGenerate(): Promise<never> {
      throw new Error('scripted model: only streaming is scripted');
    },
    async doStream(options: { prompt: unknown }) {
      const turn: ModelTurn = { seq: ++seq, texts: userTexts(options.prompt) };
      hooks.onTurnStart?.(turn);
      await hooks.hold?.(turn);
      const reply = `ack ${turn.texts.join(' | ')}`;
      const stream = new ReadableStream({
        start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 'reply' });
          controller.enqueue({ type: 'text-delta', id: 'reply', delta: reply });
          controller.enqueue({ type: 'text-end', id: 'reply' });
          controller.enqueue({
            type: 'finish',
            finishReason: 'stop',
            usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          });
          controller.close();
          hooks.onTurnEnd?.(turn);
        },
      });
      return { stream };
    },
  };
}
