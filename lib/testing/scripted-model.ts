import type { ModelClient, ModelReply, ModelRequest } from '../core/ports/model.ts';

export type ScriptedStep = ModelReply | Error | ((request: ModelRequest) => ModelReply | Promise<ModelReply>);

/**
 * A model that replays a script of replies and records every request, for tests of the loop.
 * A step may be an error to throw, or a function of the request. When the request asks for deltas,
 * the reply's reasoning and text are handed over first, in pieces, as a streaming model would.
 */
export function createScriptedModel(script: ScriptedStep[]): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  let next = 0;
  return {
    requests,
    async complete(request) {
      requests.push(structuredClone({ ...request, signal: undefined, onDelta: undefined }));
      const step = script[next++];
      if (step === undefined) throw new Error(`scripted model: no reply scripted for request ${next}`);
      if (step instanceof Error) throw step;
      const reply = typeof step === 'function' ? await step(request) : structuredClone(step);
      if (request.onDelta) {
        for (const piece of pieces(reply.reasoning?.text ?? '')) request.onDelta({ kind: 'reasoning', text: piece });
        for (const piece of pieces(reply.content ?? '')) request.onDelta({ kind: 'text', text: piece });
      }
      return reply;
    },
  };
}

/** A text in up to three pieces, as a stream would cut it. */
function pieces(text: string): string[] {
  const third = Math.ceil(text.length / 3);
  return third === 0 ? [] : [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)].filter(Boolean);
}

export const textReply = (content: string, usage = { promptTokens: 10, completionTokens: 5 }): ModelReply => ({
  content,
  toolCalls: [],
  usage,
});

export const toolCallsReply = (
  calls: Array<{ id: string; name: string; arguments: unknown }>,
  usage = { promptTokens: 10, completionTokens: 5 },
): ModelReply => ({
  content: null,
  toolCalls: calls.map((call) => ({
    id: call.id,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  })),
  usage,
});
