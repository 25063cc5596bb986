import type { Agent } from '../agent/agent-api.ts';
import type { Logger } from '../core/logger.ts';
import type { StreamingHttpResponse } from './event-stream.ts';
import type { HttpRequest, HttpResponse } from './types.ts';

/**
 * A front door: one protocol through which clients reach the same agent (its turns, store, owners,
 * approvals and budgets), e.g. the native API under /conversations or the OpenAI-compatible API
 * under /v1. Each is a folder of lib/front-doors; lib/front-doors/configured.ts lists the ones a
 * deployment serves, and lib/http/dispatch.ts hands each request to the first whose `matches` says
 * yes. lib/http holds what every door shares and knows no door by name.
 */
export interface FrontDoor {
  /** For logs and documentation: `native`, `openai-compatible`, ... */
  readonly name: string;
  /**
   * Whether a request is this door's. Only its method and path are read, so that an error raised
   * before any door runs (a caller who cannot be identified, a refused host) is still answered in
   * the shape of the door the client called.
   */
  matches(request: Pick<HttpRequest, 'method' | 'path'>): boolean;
  /**
   * The request answered. Whatever it throws is answered by `errorResponse`. An event stream it
   * returns to an entry that cannot stream (no `heartbeatMs`) is collected whole.
   */
  handle(request: HttpRequest, services: FrontDoorServices): Promise<StreamingHttpResponse>;
  /** An error as this door's clients expect it (the status always lib/http/errors.ts's). */
  errorResponse(error: unknown, logger: Logger): HttpResponse;
  /**
   * Whether the client asked in its request for a stream that keeps the connection busy (a client
   * that accepts `text/event-stream` always counts): such a turn may use the invocation's whole
   * time, where a JSON client's is held to the idle limit (lib/http/dispatch.ts, withIdleLimit).
   */
  asksForStream?(request: HttpRequest): boolean;
  /**
   * Whether a request is served to anyone, signed in or not (a discovery document): the deployment
   * routes it without an authorizer, and no owner is read for it. Absent: every request has a caller.
   */
  servesAnyone?(request: Pick<HttpRequest, 'method' | 'path'>): boolean;
}

/** What a door works with, the same for every door of a deployment. */
export interface FrontDoorServices {
  agent: Agent;
  logger: Logger;
  /** agent.yml's http.maxBodyBytes: no body past it is read. */
  maxBodyBytes: number;
  /**
   * Set by an entry that can stream a response (functions/stream.ts, and so npm start): a comment
   * this often keeps an event stream open. Unset in the buffered entry
   * (functions/health-and-fallbacks.ts), which collects any event stream a door returns.
   */
  heartbeatMs?: number;
}
