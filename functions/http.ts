/**
 * Lambda entry for the buffered HTTP routes (API Gateway REST proxy events): GET /health in the
 * stack, and any route when streaming is not wanted. Every request goes through the same HTTP
 * contract as the streaming entry and the local server.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { corsHeaders } from '../lib/http/cors.ts';
import { errorResponse } from '../lib/http/errors.ts';
import { createHttpHandler } from '../lib/http/handle.ts';
import { fromApiGatewayEvent, toApiGatewayResult } from './api-gateway.ts';
import { agent, allowedOrigins, authMode, config, logger, metrics, powertools, tracer } from './runtime.ts';

export { agent };
const handle = createHttpHandler({ agent, logger, maxBodyBytes: config.http.maxBodyBytes });

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(injectLambdaContext(powertools, { resetKeys: true }))
  .use(logMetrics(metrics))
  .use(captureLambdaHandler(tracer))
  .handler(async (event, context) => {
    let response;
    try {
      response = await handle(fromApiGatewayEvent(event, context, authMode));
    } catch (error) {
      response = errorResponse(error, logger);
    }
    Object.assign(response.headers, corsHeaders(event.headers?.origin ?? event.headers?.Origin, allowedOrigins));
    return toApiGatewayResult(response);
  });
