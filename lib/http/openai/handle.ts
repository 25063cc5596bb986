import type { Logger } from '../../core/logger.ts';
import type { Agent } from '../../agent/agent-api.ts';
import { json, turnResultHeaders } from '../errors.ts';
import type { EventStreamResponse } from '../stream-turn.ts';
import type { HttpRequest, HttpResponse } from '../types.ts';
import { readChatCompletionCall, type ChatCompletionCall } from './chat-request.ts';
import { CONVERSATION_HEADER } from './headers.ts';
import { completionBody, newIdentity, type CompletionIdentity } from './completion.ts';
import { openAIErrorResponse, ParameterError } from './errors.ts';
import { modelList, modelObject } from './models.ts';
import { matchOpenAIRoute } from './routes.ts';
import { streamCompletion } from './stream-completion.ts';
import { TurnText } from './turn-text.ts';

interface OpenAIHandlerOptions {
  agent: Pick<Agent, 'ask'>;
  logger: Logger;
  maxBodyBytes: number;
  /** agent.yml's `openaiApi.modelId`: the model this API lists and answers as. */
  modelId: string;
  /** Keep-alive comments of a stream; none when absent (a buffered entry collects the stream whole). */
  heartbeatMs?: number;
  now?: () => number;
}

/**
 * The OpenAI-compatible front door: GET /v1/models, GET /v1/models/{model} and POST
 * /v1/chat/completions over the one agent, with OpenAI's shapes and error body. Statuses, auth,
 * limits and owner scoping are the native API's (the same HttpRequest, the same error mapping).
 */
export function createOpenAIHandler(options: OpenAIHandlerOptions): (request: HttpRequest) => Promise<HttpResponse | EventStreamResponse> {
  const { agent, logger, modelId } = options;
  const now = options.now ?? Date.now;
  // A model's `created`: when this process began serving it.
  const created = Math.floor(now() / 1000);

  async function route(request: HttpRequest): Promise<HttpResponse | EventStreamResponse> {
    const match = matchOpenAIRoute(request.method, request.path);
    switch (match.route) {
      case 'listModels':
        return json(200, modelList(modelId, created));
      case 'retrieveModel':
        if (match.model !== modelId) throw new ParameterError('model_not_found', `The model "${match.model}" does not exist here: this service answers as "${modelId}".`, 'model');
        return json(200, modelObject(modelId, created));
      case 'chatCompletions': {
        const call = readChatCompletionCall(request, { modelId, maxBodyBytes: options.maxBodyBytes });
        const identity = newIdentity(modelId, now());
        if (call.stream) return streamCompletion(call, { agent, logger, identity, ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }) });
        return complete(call, identity);
      }
    }
  }

  /**
   * A whole turn, answered at its end. The text of every round is collected from the loop's events
   * (which has the model stream its replies, as for the native SSE) so that the content is the one
   * a streaming client is shown (lib/http/openai/turn-text.ts).
   */
  async function complete(call: ChatCompletionCall, identity: CompletionIdentity): Promise<HttpResponse> {
    const text = new TurnText();
    const result = await call.run(agent, (event) => {
      if (event.type === 'text-delta') text.add(event.round, event.text);
    });
    text.finish(result.reply);
    // A turn stored after a failure is a completion too: its reply says what happened, mcp_agent.error names it.
    return json(200, completionBody(identity, text.text, result), { [CONVERSATION_HEADER]: result.conversationId, ...turnResultHeaders(result) });
  }

  return async (request) => {
    try {
      return await route(request);
    } catch (error) {
      return openAIErrorResponse(error, logger);
    }
  };
}
