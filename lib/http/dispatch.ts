import { NotFoundError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { errorResponse } from './errors.ts';
import { collectResponse, type StreamingHttpResponse } from './event-stream.ts';
import type { FrontDoor, FrontDoorServices } from './front-door.ts';
import { acceptsEventStream } from './sse.ts';
import type { HttpRequest, HttpResponse } from './types.ts';

/** The door a request is for: the first of the list that matches it. */
function frontDoorFor(doors: readonly FrontDoor[], request: Pick<HttpRequest, 'method' | 'path'>): FrontDoor | undefined {
  return doors.find((door) => door.matches(request));
}

/**
 * The HTTP contract over a list of front doors, for an entry that can stream: each request goes to
 * the first door that matches it, and every error a door raises is answered in that door's shape.
 */
export function serveFrontDoors(doors: readonly FrontDoor[], services: FrontDoorServices & { heartbeatMs: number }): (request: HttpRequest) => Promise<StreamingHttpResponse> {
  return (request) => answer(doors, request, services);
}

/** The same for an entry with no stream to write to: an event stream a door answers with is collected whole. */
export function serveFrontDoorsBuffered(doors: readonly FrontDoor[], services: Omit<FrontDoorServices, 'heartbeatMs'>): (request: HttpRequest) => Promise<HttpResponse> {
  return async (request) => collectResponse(await answer(doors, request, services));
}

async function answer(doors: readonly FrontDoor[], request: HttpRequest, services: FrontDoorServices): Promise<StreamingHttpResponse> {
  const door = frontDoorFor(doors, request);
  if (!door) return errorResponse(noDoor(request), services.logger);
  try {
    return await door.handle(request, services);
  } catch (error) {
    return door.errorResponse(error, services.logger);
  }
}

/** An error raised before any door ran, in the shape of the door whose path the client called. */
export function frontDoorErrorResponse(doors: readonly FrontDoor[], request: Pick<HttpRequest, 'method' | 'path'>, error: unknown, logger: Logger): HttpResponse {
  const door = frontDoorFor(doors, request);
  return door ? door.errorResponse(error, logger) : errorResponse(error, logger);
}

/**
 * A JSON client of a streamed integration receives nothing until the turn ends, and API Gateway
 * closes a Regional stream after 5 minutes without a byte. Its turn therefore gets at most
 * `idleLimitMs` (and stops with `deadline`, stored, inside it); a client that asked for a stream
 * (it accepts `text/event-stream`, or its door says it asked otherwise) is kept alive by its events
 * and heartbeats and may use the invocation's whole time.
 */
export function withIdleLimit(doors: readonly FrontDoor[], request: HttpRequest, now: number, idleLimitMs: number): HttpRequest {
  if (acceptsEventStream(request.headers.accept) || frontDoorFor(doors, request)?.asksForStream?.(request)) return request;
  return { ...request, deadlineAt: Math.min(request.deadlineAt ?? Number.POSITIVE_INFINITY, now + idleLimitMs) };
}

const noDoor = (request: Pick<HttpRequest, 'method' | 'path'>) => new NotFoundError('route_not_found', `There is no ${request.method} ${request.path}.`);
