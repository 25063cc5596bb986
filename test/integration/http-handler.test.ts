/**
 * The real Lambda entry functions/health-and-fallbacks.ts, invoked locally with API Gateway REST proxy events, on
 * dynalite, the demo MCP server and the scripted model server, under IAM auth.
 */
import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_MARGIN_MS } from '../../lib/core/deadline.ts';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { stubLambdaEnvironment } from '../support/lambda-environment.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { lambdaContext } from '../support/lambda-context.ts';

const fixture = (name: string): APIGatewayProxyEvent => JSON.parse(readFileSync(new URL(`../fixtures/apigateway/${name}.json`, import.meta.url), 'utf8'));
const baseEvent = fixture('rest-proxy-iam');

function post(path: string, body: unknown, userArn = baseEvent.requestContext.identity.userArn): APIGatewayProxyEvent {
  return { ...baseEvent, path, body: JSON.stringify(body), requestContext: { ...baseEvent.requestContext, identity: { ...baseEvent.requestContext.identity, userArn } } };
}

function get(path: string, userArn: string): APIGatewayProxyEvent {
  return { ...post(path, {}, userArn), httpMethod: 'GET', body: null };
}

describe('functions/health-and-fallbacks.ts under IAM auth', () => {
  let table: LocalTable;
  let model: ScriptedOpenAIServer;
  let handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  let close: () => Promise<void>;
  let environment: { restore(): void };

  beforeAll(async () => {
    table = await startLocalTable();
    model = await startScriptedOpenAIServer([
      toolCallsReply([{ id: 'call_1', name: 'getWeather', arguments: { city: '上海' } }]),
      textReply('上海多云'),
      // The deadline case: the model answers round 1 with a tool call, then takes longer than the time left.
      toolCallsReply([{ id: 'call_2', name: 'getWeather', arguments: { city: '北京' } }]),
      { status: 200, body: textReply('too late'), delayMs: 10_000 },
      // The identity-pool user's question.
      textReply('你的订单已发货'),
    ]);
    environment = stubLambdaEnvironment({ agentYml: ['turn: { reserveSeconds: 1 }'], modelBaseURL: model.baseURL, table, variables: { AUTH_MODE: 'iam' } });
    const entry = await import('../../functions/health-and-fallbacks.ts');
    handler = entry.handler as unknown as typeof handler;
    close = () => entry.agent.close();
  });

  afterAll(async () => {
    await close?.();
    await model?.close();
    await table?.close();
    environment?.restore();
  });

  it('answers a question and keeps the conversation for its owner only', async () => {
    const response = await handler(post('/conversations/shared-id/messages', { message: '上海天气', requestId: 'r-1' }), lambdaContext({ functionName: 'health-and-fallbacks' }));
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ conversationId: 'shared-id', turn: 1, reply: '上海多云', stopReason: 'completed' });

    expect(response.headers).toMatchObject({ 'access-control-allow-origin': '*' });

    const owner = await handler(get('/conversations/shared-id', baseEvent.requestContext.identity.userArn!), lambdaContext({ functionName: 'health-and-fallbacks', remainingMs: 10_000 }));
    expect(owner.statusCode).toBe(200);
    const stranger = await handler(get('/conversations/shared-id', 'arn:aws:iam::123456789012:user/mallory'), lambdaContext({ functionName: 'health-and-fallbacks', remainingMs: 10_000 }));
    expect(stranger.statusCode).toBe(404);
  });

  it('answers 401 when an IAM-authenticated route arrives without an identity', async () => {
    const anonymous = get('/conversations/shared-id', '');
    anonymous.requestContext.identity = { ...anonymous.requestContext.identity, userArn: null, caller: null };
    const response = await handler(anonymous, lambdaContext({ functionName: 'health-and-fallbacks', remainingMs: 10_000 }));
    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body).error.code).toBe('unauthenticated');
  });

  it('stops with deadline before the invocation times out, and stores the turn with the invariant kept', async () => {
    // 3 s for the turn, and the time the invocation keeps to answer after the turn's deadline.
    const response = await handler(post('/conversations/slow/messages', { message: '北京天气' }), lambdaContext({ functionName: 'health-and-fallbacks', remainingMs: 3_000 + ANSWER_MARGIN_MS }));
    expect(response.statusCode).toBe(200);
    const result = JSON.parse(response.body);
    expect(result).toMatchObject({ stopReason: 'deadline', rounds: 1, toolCalls: [{ id: 'call_2', ok: true }] });
    const stored = JSON.parse((await handler(get('/conversations/slow', baseEvent.requestContext.identity.userArn!), lambdaContext({ functionName: 'health-and-fallbacks', remainingMs: 10_000 }))).body);
    expect(stored.turns[0].messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('keeps two identity-pool users apart, although both sign as the pool role\'s one session', async () => {
    const ada = fixture('rest-proxy-identity-pool-authenticated');
    const asBob = (event: APIGatewayProxyEvent): APIGatewayProxyEvent => ({
      ...event,
      requestContext: { ...event.requestContext, identity: { ...event.requestContext.identity, cognitoIdentityId: 'eu-west-1:4f1a2b3c-9d8e-4f7a-8b6c-5d4e3f2a1b0c' } },
    });
    const question = { ...ada, path: '/conversations/pool-orders/messages', body: JSON.stringify({ message: '我的订单到哪了？' }) };
    const read = { ...ada, httpMethod: 'GET', path: '/conversations/pool-orders', body: null };

    expect((await handler(question, lambdaContext({ functionName: 'health-and-fallbacks' }))).statusCode).toBe(200);

    expect((await handler(read, lambdaContext({ functionName: 'health-and-fallbacks', remainingMs: 10_000 }))).statusCode).toBe(200);
    expect(asBob(read).requestContext.identity.userArn).toBe(read.requestContext.identity.userArn);
    expect((await handler(asBob(read), lambdaContext({ functionName: 'health-and-fallbacks', remainingMs: 10_000 }))).statusCode).toBe(404);
    const guest = { ...fixture('rest-proxy-identity-pool-unauthenticated'), httpMethod: 'GET', path: '/conversations/pool-orders', body: null };
    expect((await handler(guest, lambdaContext({ functionName: 'health-and-fallbacks', remainingMs: 10_000 }))).statusCode).toBe(404);
  });
});
