/**
 * A deployed stack without a model never falls back to the offline stand-in: the real Lambda entry
 * functions/health-and-fallbacks.ts, built by functions/runtime.ts from an environment that names no endpoint, no
 * key and no model, answers questions with 503 model_not_configured and says so in /health.
 */
import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { stubLambdaEnvironment } from '../support/lambda-environment.ts';
import { lambdaContext } from '../support/lambda-context.ts';

const baseEvent: APIGatewayProxyEvent = JSON.parse(readFileSync(new URL('../fixtures/apigateway/rest-proxy-iam.json', import.meta.url), 'utf8'));
const context = lambdaContext({ functionName: 'health-and-fallbacks' });

describe('functions/runtime.ts without a model configured', () => {
  let table: LocalTable;
  let handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  let close: () => Promise<void>;
  let environment: { restore(): void };

  beforeAll(async () => {
    table = await startLocalTable();
    // The stack sets neither OPENAI_BASE_URL nor LLM_MODEL, and the key secret is still empty.
    environment = stubLambdaEnvironment({ modelBaseURL: '', table, variables: { OPENAI_API_KEY: '', LLM_MODEL: '' } });
    const entry = await import('../../functions/health-and-fallbacks.ts');
    handler = entry.handler as unknown as typeof handler;
    close = () => entry.agent.close();
  });

  afterAll(async () => {
    await close?.();
    await table?.close();
    environment?.restore();
  });

  it('answers a question with 503 model_not_configured, not with the offline stand-in', async () => {
    const response = await handler({ ...baseEvent, path: '/conversations/deployed-1/messages', body: JSON.stringify({ message: '上海天气怎么样？' }) }, context);

    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'model_not_configured' } });
  });

  it('reports the model as not configured in /health, and not as the stand-in', async () => {
    const response = await handler({ ...baseEvent, httpMethod: 'GET', path: '/health', resource: '/health', body: null }, context);

    const health = JSON.parse(response.body);
    expect(health).toMatchObject({ status: 'degraded', model: { configured: false, name: 'gpt-4o-mini' } });
    expect(health.model).not.toHaveProperty('offlineStandIn');
  });
});
