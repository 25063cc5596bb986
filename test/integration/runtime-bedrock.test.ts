/**
 * A deployed function on Bedrock: functions/runtime.ts builds the agent from LLM_PROVIDER=bedrock
 * (no API key, no secret), and a question through the real Lambda entry is answered through the
 * Bedrock stand-in, signed with the function's credentials.
 */
import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { converseText, converseToolUse } from '../support/bedrock-stand-in-events.ts';
import { standInEnvironment, startBedrockStandIn, type BedrockStandIn } from '../support/bedrock-stand-in.ts';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { lambdaContext } from '../support/lambda-context.ts';
import { stubLambdaEnvironment } from '../support/lambda-environment.ts';

const baseEvent: APIGatewayProxyEvent = JSON.parse(readFileSync(new URL('../fixtures/apigateway/rest-proxy-iam.json', import.meta.url), 'utf8'));
const context = lambdaContext({ functionName: 'health-and-fallbacks' });
const MODEL = 'eu.amazon.nova-pro-v1:0';

describe('functions/runtime.ts with LLM_PROVIDER=bedrock', () => {
  let table: LocalTable;
  let standIn: BedrockStandIn;
  let handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  let close: () => Promise<void>;
  let environment: { restore(): void };

  beforeAll(async () => {
    table = await startLocalTable();
    standIn = await startBedrockStandIn([converseToolUse([{ toolUseId: 'tooluse_w', name: 'getWeather', input: { city: 'Shanghai' } }]), converseText('Shanghai is sunny.')]);
    environment = stubLambdaEnvironment({
      modelBaseURL: '',
      table,
      variables: {
        OPENAI_API_KEY: '',
        ...standInEnvironment(standIn, MODEL),
      },
    });
    const entry = await import('../../functions/health-and-fallbacks.ts');
    handler = entry.handler as unknown as typeof handler;
    close = () => entry.agent.close();
  }, 30_000);

  afterAll(async () => {
    await close?.();
    await standIn?.close();
    await table?.close();
    environment?.restore();
  });

  it('answers a question through Converse, with a tool round, and reports the provider in /health', async () => {
    const response = await handler({ ...baseEvent, path: '/conversations/deployed-bedrock/messages', body: JSON.stringify({ message: 'Weather in Shanghai?' }) }, context);
    const health = await handler({ ...baseEvent, httpMethod: 'GET', path: '/health', resource: '/health', body: null }, context);

    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ reply: 'Shanghai is sunny.', stopReason: 'completed', rounds: 2, toolCalls: [{ name: 'getWeather', ok: true }] });
    expect(standIn.requests.map((request) => [request.modelId, request.rejected])).toEqual([
      [MODEL, undefined],
      [MODEL, undefined],
    ]);
    expect(JSON.parse(health.body).model).toEqual({ configured: true, name: MODEL, provider: 'bedrock' });
  });
});
