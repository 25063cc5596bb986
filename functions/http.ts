/**
 * Lambda entry for the HTTP API (API Gateway REST proxy events). A composition root: it reads the
 * configuration and builds the agent once per container (cold start), then every request goes
 * through the same HTTP contract as the local server.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createJsonLogger } from '../lib/core/logger.ts';
import { createHttpHandler } from '../lib/http/handle.ts';
import { buildAgent, loadConfig } from '../lib/index.ts';
import { fromApiGatewayEvent, toApiGatewayResult } from './api-gateway.ts';

const config = loadConfig();
const logger = createJsonLogger(config.logging.level);
export const agent = buildAgent(config, { logger });
const handle = createHttpHandler({ agent, logger, maxBodyBytes: config.http.maxBodyBytes });

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>().handler(async (event, context) =>
  toApiGatewayResult(await handle(fromApiGatewayEvent(event, context))),
);
