/**
 * Lambda entry for the buffered HTTP routes (API Gateway REST proxy events): GET /health in the
 * stack, and any route when streaming is not wanted. Every request goes through the same HTTP
 * contract as the streaming entry and the local server.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createHttpHandler } from '../lib/http/handle.ts';
import { answer, fromApiGatewayEvent, toApiGatewayResult } from './api-gateway.ts';
import { agent, allowedOrigins, callerIdentity, config, logger, metrics, powertools } from './runtime.ts';

export { agent };
const handle = createHttpHandler({ agent, logger, maxBodyBytes: config.http.maxBodyBytes, openaiApi: config.openaiApi });

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(injectLambdaContext(powertools, { resetKeys: true }))
  .use(logMetrics(metrics))
  .handler(async (event, context) =>
    toApiGatewayResult(await answer(event, () => handle(fromApiGatewayEvent(event, context, callerIdentity)), { logger, allowedOrigins })),
  );
