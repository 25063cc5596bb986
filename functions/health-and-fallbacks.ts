/**
 * Lambda entry for GET /health and the fallbacks: the contract's 404 (naming the routes) or 405
 * (with Allow) for every route and method the streaming function does not serve, instead of API
 * Gateway's bare 403. Buffered (API Gateway REST proxy events), through the same HTTP contract as
 * the streaming entry and the local server, so it would answer any route.
 */
import './interpreted-zod.ts';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { configuredFrontDoors } from '../lib/front-doors/configured.ts';
import { serveFrontDoorsBuffered } from '../lib/http/dispatch.ts';
import { answer, fromApiGatewayEvent, toApiGatewayResult } from '../lib/http/lambda/api-gateway.ts';
import { agent, allowedOrigins, callerIdentity, config, logger, metrics, powertools, settings } from './runtime.ts';

export { agent };
const frontDoors = configuredFrontDoors({ ...config, authMode: settings.authMode, ...(settings.cognitoIssuer ? { cognitoIssuer: settings.cognitoIssuer } : {}), ...(settings.oidc ? { oidcIssuer: settings.oidc.issuer } : {}) });
const handle = serveFrontDoorsBuffered(frontDoors, { agent, logger, maxBodyBytes: config.http.maxBodyBytes });

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(injectLambdaContext(powertools, { resetKeys: true }))
  .use(logMetrics(metrics))
  .handler(async (event, context) =>
    toApiGatewayResult(await answer(event, () => handle(fromApiGatewayEvent(event, context, callerIdentity, frontDoors)), { logger, allowedOrigins, frontDoors })),
  );
