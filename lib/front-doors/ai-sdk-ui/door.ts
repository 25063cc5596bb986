import { NotFoundError } from '../../core/errors.ts';
import { errorResponse } from '../../http/errors.ts';
import type { FrontDoor } from '../../http/front-door.ts';
import { streamJsonEvents } from '../../http/json-event-stream.ts';
import { routeFor } from '../../http/route-method.ts';
import { readChatCall } from './chat-request.ts';
import { UIMessageChunks } from './ui-message-chunks.ts';

const PREFIX = '/ui/ai-sdk';
const CHAT_PATH = `${PREFIX}/chat`;

/**
 * The AI SDK UI door: POST /ui/ai-sdk/chat answers useChat (`new DefaultChatTransport({ api })`)
 * with the UI message stream protocol v1 (ui-message-chunks.ts), over the same turns as the native
 * API: the chat's id is the conversation, readable and continued on every other door. Errors are
 * the native JSON errors (useChat shows the body of a failed response).
 */
export const aiSdkUiFrontDoor: FrontDoor = {
  name: 'ai-sdk-ui',
  matches: (request) => request.path === PREFIX || request.path.startsWith(`${PREFIX}/`),
  async handle(request, services) {
    const path = request.path.replace(/\/+$/, '');
    if (path !== CHAT_PATH) throw new NotFoundError('route_not_found', `There is no ${request.method} ${path}. The AI SDK UI door has POST ${CHAT_PATH}.`);
    routeFor({ POST: 'chat' }, request.method, path);
    const call = readChatCall(request, services.maxBodyBytes);
    const chunks = new UIMessageChunks(call.declined);
    return streamJsonEvents((onEvent) => call.run(services.agent, onEvent), {
      headers: { 'x-vercel-ai-ui-message-stream': 'v1' },
      // A structured answer is sent whole at the end (docs/structured-answers.md): a rejected one must not stream first.
      event: (event) => (call.structured && event.type === 'text-delta' ? [] : chunks.event(event)),
      result: (result) => chunks.result(result),
      failure: (response) => chunks.failure(response),
      done: 'data: [DONE]\n\n',
    }, { logger: services.logger, errorResponse, ...(services.heartbeatMs === undefined ? {} : { heartbeatMs: services.heartbeatMs }) });
  },
  errorResponse,
  // useChat reads a stream whatever it sends in Accept.
  asksForStream: (request) => request.method.toUpperCase() === 'POST' && request.path.replace(/\/+$/, '') === CHAT_PATH,
};
