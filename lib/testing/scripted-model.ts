import type { ModelClient, ModelReply, ModelRequest } from '../core/ports.ts';

export type ScriptedStep = ModelReply | Error | ((request: ModelRequest) => ModelReply | Promise<ModelReply>);

/**
 * A model that replays a script of replies and records every request, for tests of the loop.
 * A step may be an error to throw, or a function of the request.
 */
export function createScriptedModel(script: ScriptedStep[]): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  let next = 0;
  return {
    requests,
    async complete(request) {
      requests.push(structuredClone({ ...request, signal: undefined }));
      const step = script[next++];
      if (step === undefined) throw new Error(`scripted model: no reply scripted for request ${next}`);
      if (step instanceof Error) throw step;
      return typeof step === 'function' ? step(request) : structuredClone(step);
    },
  };
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
