/**
 * Lambda entry for the conversation routes, with response streaming (API Gateway REST proxy events,
 * `responseTransferMode: STREAM`): Server-Sent Events for a client that accepts
 * `text/event-stream`, the buffered contract's JSON for everyone else. Streaming is also what lets
 * a turn run past API Gateway's 29 s, up to the function's 15 minutes.
 *
 * middy 7 streams through `executionMode: executionModeStreamifyResponse` (older middy spelt it
 * `streamifyResponse: true`): the handler returns {statusCode, headers, body}; middy writes the
 * prelude through awslambda.HttpResponseStream and pipes the body, a string or a stream.
 */
import './interpreted-zod.ts';
import './early-mcp-servers.ts';
import '../lib/http/lambda/awslambda-global.ts';
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { APIGatewayProxyEvent, StreamifyHandler } from 'aws-lambda';
import { configuredFrontDoors } from '../lib/front-doors/configured.ts';
import { serveFrontDoors, withIdleLimit } from '../lib/http/dispatch.ts';
import { EventStreamBody, type StreamingHttpResponse } from '../lib/http/event-stream.ts';
import { ms } from '../lib/core/time.ts';
import { answer, fromApiGatewayEvent } from '../lib/http/lambda/api-gateway.ts';
import { agent, allowedOrigins, callerIdentity, config, logger, metrics, powertools, settings } from './runtime.ts';
import { endUnclaimed } from '../lib/adapters/mcp/early-start.ts';

// The MCP servers connect and list their tools while the function loads (Lambda's init phase),
// not on the first turn's path; a stdio server process started early and not taken is ended then.
void agent.connect().then(endUnclaimed);

/** The front doors this function serves (lib/front-doors/configured.ts); the local server answers its errors in their shapes too. */
export const frontDoors = configuredFrontDoors({ ...config, authMode: settings.authMode, ...(settings.cognitoIssuer ? { cognitoIssuer: settings.cognitoIssuer } : {}), ...(settings.oidc ? { oidcIssuer: settings.oidc.issuer } : {}) });
export { agent };
/** API Gateway closes a Regional stream after 5 idle minutes; a JSON turn ends (and is stored) before that. */
const JSON_RESPONSE_LIMIT_MS = 4.5 * 60_000;
const handle = serveFrontDoors(frontDoors, { agent, logger, maxBodyBytes: config.http.maxBodyBytes, heartbeatMs: ms(config.http.heartbeatSeconds) });

/** The turn behind an event-stream response; nothing to wait for after a buffered one. */
const turnSettled = (request: Request): Promise<void> | undefined => {
  const body = (request.response as { body?: unknown } | undefined)?.body;
  return body instanceof EventStreamBody ? body.settled : undefined;
};

/**
 * middy runs `after` when the handler returns, which for an event stream is when the turn has only
 * begun. Powertools' `after` publishes the metrics and resets the log keys: deferred here to the
 * turn's end, they cover the whole turn, as in functions/health-and-fallbacks.ts.
 */
function afterTurnSettles(middleware: MiddlewareObj): MiddlewareObj {
  const { after } = middleware;
  if (!after) return middleware;
  return {
    ...middleware,
    after: (request) => {
      const settled = turnSettled(request);
      if (!settled) return after(request);
      void settled.then(() => after(request)).catch((error: unknown) => logger.error('a middleware failed after the stream', { error: String(error) }));
    },
  };
}

const streaming = middy<APIGatewayProxyEvent, StreamingHttpResponse>({
  executionMode: executionModeStreamifyResponse,
  // Runs once the body is written or the client has gone; waiting for the turn here keeps the
  // invocation alive until it is stored, even when nobody is listening any more.
  requestEnd: async (request) => {
    await turnSettled(request);
  },
})
  .use(afterTurnSettles(injectLambdaContext(powertools, { resetKeys: true })))
  .use(afterTurnSettles(logMetrics(metrics)))
  .handler((event, context) =>
    answer(event, () => handle(withIdleLimit(frontDoors, fromApiGatewayEvent(event, context, callerIdentity, frontDoors), Date.now(), JSON_RESPONSE_LIMIT_MS)), { logger, allowedOrigins, frontDoors }),
  );

/** middy's types describe buffered handlers; in streaming mode the runtime calls (event, responseStream, context). */
export const handler = streaming as unknown as StreamifyHandler<APIGatewayProxyEvent, void>;
