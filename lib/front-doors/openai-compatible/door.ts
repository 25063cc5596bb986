import { json, turnResultHeaders } from '../../http/errors.ts';
import type { StreamingHttpResponse } from '../../http/event-stream.ts';
import type { FrontDoor, FrontDoorServices } from '../../http/front-door.ts';
import type { HttpRequest, HttpResponse } from '../../http/types.ts';
import { readChatCompletionCall, type ChatCompletionCall } from './chat-request.ts';
import { CONVERSATION_HEADER } from './headers.ts';
import { completionBody, newIdentity, type CompletionIdentity } from './completion.ts';
import { openAIErrorResponse, ParameterError } from './errors.ts';
import { modelList, modelObject } from './models.ts';
import { asksForCompletionStream, isOpenAICompatiblePath, matchOpenAIRoute } from './routes.ts';
import { streamCompletion } from './stream-completion.ts';
import { TurnText } from './turn-text.ts';

interface OpenAICompatibleSettings {
  /** agent.yml's `openaiApi.modelId`: the model this API lists and answers as. */
  modelId: string;
  now?: () => number;
}

/**
 * The OpenAI-compatible front door: GET /v1/models, GET /v1/models/{model} and POST
 * /v1/chat/completions over the one agent, with OpenAI's shapes and error body. Statuses, auth,
 * limits and owner scoping are the native API's (the same HttpRequest, the same error mapping).
 * Everything under /v1 is its, and answers in its error shape.
 */
export function openAICompatibleFrontDoor(settings: OpenAICompatibleSettings): FrontDoor {
  const { modelId } = settings;
  const now = settings.now ?? Date.now;
  // A model's `created`: when this process began serving it.
  const created = Math.floor(now() / 1000);

  async function handle(request: HttpRequest, services: FrontDoorServices): Promise<StreamingHttpResponse> {
    const { agent, logger, heartbeatMs } = services;
    const match = matchOpenAIRoute(request.method, request.path);
    switch (match.route) {
      case 'listModels':
        return json(200, modelList(modelId, created));
      case 'retrieveModel':
        if (match.model !== modelId) throw new ParameterError('model_not_found', `The model "${match.model}" does not exist here: this service answers as "${modelId}".`, 'model');
        return json(200, modelObject(modelId, created));
      case 'chatCompletions': {
        const call = readChatCompletionCall(request, { modelId, maxBodyBytes: services.maxBodyBytes });
        const identity = newIdentity(modelId, now());
        // Where the entry cannot stream, a `stream: true` completion is collected and sent whole.
        if (call.stream) return streamCompletion(call, { agent, logger, identity, ...(heartbeatMs === undefined ? {} : { heartbeatMs }) });
        return complete(call, identity, services);
      }
    }
  }

  return {
    name: 'openai-compatible',
    matches: (request) => isOpenAICompatiblePath(request.path),
    handle,
    errorResponse: openAIErrorResponse,
    asksForStream: asksForCompletionStream,
  };
}

/**
 * A whole turn, answered at its end. The text of every round is collected from the loop's events
 * (which has the model stream its replies, as for the native SSE) so that the content is the one
 * a streaming client is shown (turn-text.ts).
 */
async function complete(call: ChatCompletionCall, identity: CompletionIdentity, services: FrontDoorServices): Promise<HttpResponse> {
  const text = new TurnText();
  const result = await call.run(services.agent, (event) => {
    if (event.type === 'text-delta') text.add(event.round, event.text);
  });
  text.finish(result.reply);
  // A turn stored after a failure is a completion too: its reply says what happened, mcp_agent.error names it.
  // A structured answer is the JSON alone, as a client parsing the content expects.
  return json(200, completionBody(identity, call.structured ? result.reply : text.text, result), { [CONVERSATION_HEADER]: result.conversationId, ...turnResultHeaders(result) });
}
