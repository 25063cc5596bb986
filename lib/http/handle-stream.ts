import { readTurnCall, type TurnCall } from './turn-call.ts';
import { errorResponse } from './errors.ts';
import { createHttpHandler, type HttpHandlerOptions } from './handle.ts';
import { createOpenAIHandler } from './openai/handle.ts';
import { isOpenAIPath } from './openai/routes.ts';
import { matchRoute, TURN_ROUTES, type RouteMatch } from './routes.ts';
import { lastEventIdOf, resumeStream } from './resume-stream.ts';
import { acceptsEventStream } from './sse.ts';
import { streamTurn, type EventStreamResponse } from './stream-turn.ts';
import type { HttpRequest, HttpResponse } from './types.ts';

interface StreamingHttpHandlerOptions extends HttpHandlerOptions {
  /** How often an event stream carries a heartbeat comment while the turn runs. */
  heartbeatMs: number;
}

export type StreamingHttpResponse = HttpResponse | EventStreamResponse;

/**
 * The HTTP contract with Server-Sent Events: a POST to a conversation route from a client that
 * accepts `text/event-stream` gets the turn as events, and one that carries Last-Event-ID resumes
 * the turn's stream instead (never a new turn); every other request gets exactly the buffered
 * contract's response.
 */
export function createStreamingHttpHandler(options: StreamingHttpHandlerOptions): (request: HttpRequest) => Promise<StreamingHttpResponse> {
  const handleBuffered = createHttpHandler(options);
  const { openaiApi } = options;
  const openAI = openaiApi && createOpenAIHandler({ agent: options.agent, logger: options.logger, maxBodyBytes: options.maxBodyBytes, modelId: openaiApi.modelId, heartbeatMs: options.heartbeatMs });
  return async (request) => {
    if (openAI && isOpenAIPath(request.path)) return openAI(request);
    const lastEventId = lastEventIdOf(request);
    const match = turnRoute(request, lastEventId !== undefined);
    if (!match) return handleBuffered(request);
    if (lastEventId !== undefined) return resumeStream(request, match, lastEventId, options);
    let call: TurnCall;
    try {
      call = readTurnCall(request, match, options.maxBodyBytes);
    } catch (error) {
      return errorResponse(error, options.logger);
    }
    return streamTurn(call, options);
  };
}

export function isEventStreamResponse(response: StreamingHttpResponse): response is EventStreamResponse {
  return typeof response.body !== 'string';
}

/** The turn routes, when the client asked for events (or resumes them); a route error is left to the buffered contract. */
function turnRoute(request: HttpRequest, resuming: boolean): RouteMatch | undefined {
  if (!resuming && !acceptsEventStream(request.headers.accept)) return undefined;
  let match: RouteMatch;
  try {
    match = matchRoute(request.method, request.path);
  } catch {
    return undefined;
  }
  return TURN_ROUTES.has(match.route) ? match : undefined;
}

/**
 * A JSON client of a streamed integration receives nothing until the turn ends, and API Gateway
 * closes a Regional stream after 5 minutes without a byte. Its turn therefore gets at most
 * `idleLimitMs` (and stops with `deadline`, stored, inside it); an event-stream client is kept alive
 * by its events and heartbeats and may use the invocation's whole time.
 */
export function withIdleLimit(request: HttpRequest, now: number, idleLimitMs: number): HttpRequest {
  if (acceptsEventStream(request.headers.accept) || asksForCompletionStream(request)) return request;
  return { ...request, deadlineAt: Math.min(request.deadlineAt ?? Number.POSITIVE_INFINITY, now + idleLimitMs) };
}

/**
 * A Chat Completions client asks for a stream in its body (`"stream": true`), not in Accept (the
 * OpenAI SDKs send `Accept: application/json` either way); its keep-alive comments hold the
 * connection open like the native stream's heartbeats.
 */
function asksForCompletionStream(request: HttpRequest): boolean {
  if (request.method.toUpperCase() !== 'POST' || !isOpenAIPath(request.path) || !request.body) return false;
  try {
    return (JSON.parse(request.body) as { stream?: unknown } | null)?.stream === true;
  } catch {
    return false;
  }
}
