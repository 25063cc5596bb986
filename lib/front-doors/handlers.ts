import { serveFrontDoors, serveFrontDoorsBuffered } from '../http/dispatch.ts';
import type { StreamingHttpResponse } from '../http/event-stream.ts';
import type { FrontDoorServices } from '../http/front-door.ts';
import type { HttpRequest, HttpResponse } from '../http/types.ts';
import { configuredFrontDoors, type FrontDoorSettings } from './configured.ts';

/** The agent, its limits and what agent.yml says about the doors (its `openaiApi`: /v1 is served only with it). */
interface HttpHandlerOptions extends Omit<FrontDoorServices, 'heartbeatMs'>, FrontDoorSettings {}

/**
 * The configured front doors (configured.ts) in one call, for tests and embedding code; the Lambda
 * entries build the list once and share it with the errors they answer before any door runs.
 * Buffered: every response whole, event streams collected.
 */
export function createHttpHandler(options: HttpHandlerOptions): (request: HttpRequest) => Promise<HttpResponse> {
  return serveFrontDoorsBuffered(configuredFrontDoors(options), options);
}

/** The same with streams, each event stream carrying a heartbeat comment every `heartbeatMs`. */
export function createStreamingHttpHandler(options: HttpHandlerOptions & { heartbeatMs: number }): (request: HttpRequest) => Promise<StreamingHttpResponse> {
  return serveFrontDoors(configuredFrontDoors(options), options);
}
