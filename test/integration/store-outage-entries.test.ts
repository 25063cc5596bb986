/**
 * The real Lambda entries (functions/stream.ts and functions/worker.ts, with middy and
 * functions/runtime.ts behind them) while DynamoDB stops answering until the invocation's end:
 * the store is dynalite behind the fault proxy, the model the scripted server. What the caller
 * gets must still say what happened: a JSON `503 store_unavailable`, a partial batch response.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context, StreamifyHandler } from 'aws-lambda';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../support/dynamodb-fault-proxy.ts';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { lambdaContext } from '../support/lambda-context.ts';
import { stubLambdaEnvironment } from '../support/lambda-environment.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { splitLambdaStream } from '../support/sse-client.ts';
import { sqsEvent, sqsRecord } from '../support/sqs-records.ts';

const baseEvent: APIGatewayProxyEvent = JSON.parse(readFileSync(new URL('../fixtures/apigateway/rest-proxy-iam.json', import.meta.url), 'utf8'));

/** A JSON question on a conversation, as API Gateway sends it. */
function askEvent(conversationId: string, body: unknown): APIGatewayProxyEvent {
  const path = `/conversations/${conversationId}/messages`;
  const headers = { ...baseEvent.headers, Accept: 'application/json', 'Content-Type': 'application/json' };
  return {
    ...baseEvent,
    resource: '/conversations/{conversationId}/messages',
    path,
    httpMethod: 'POST',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value!]])),
    pathParameters: { conversationId },
    body: JSON.stringify(body),
    requestContext: { ...baseEvent.requestContext, resourcePath: '/conversations/{conversationId}/messages', httpMethod: 'POST', path: `/prod${path}` },
  };
}

function responseStream() {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  return Object.assign(stream, { bytes: () => Buffer.concat(chunks), setContentType: () => undefined });
}

describe('the Lambda entries while DynamoDB never answers until the invocation ends', () => {
  let table: LocalTable;
  let proxy: FaultProxy;
  let model: ScriptedOpenAIServer;
  let environment: { restore(): void } | undefined;
  let streamHandler: StreamifyHandler<APIGatewayProxyEvent, void>;
  let workerHandler: (event: unknown, context: Context) => Promise<unknown>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    table = await startLocalTable();
    proxy = await startFaultProxy({ target: table.endpoint });
    model = await startScriptedOpenAIServer([
      // The turn whose tool runs before the store stops answering.
      toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]),
      textReply('上海多云。'),
    ]);
    environment = stubLambdaEnvironment({
      // The store waits for as long as the invocation has: the invocation's end is what bounds it.
      agentYml: ['conversation: { requestTimeoutSeconds: 0.5, connectTimeoutSeconds: 0.5, unavailableWaitSeconds: 600 }', 'turn: { reserveSeconds: 0 }'],
      modelBaseURL: model.baseURL,
      table: { ...table, connection: { ...table.connection, endpoint: proxy.endpoint } },
      variables: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
    });
    const stream = await import('../../functions/stream.ts');
    streamHandler = stream.handler;
    workerHandler = (await import('../../functions/worker.ts')).handler as unknown as typeof workerHandler;
    close = () => stream.agent.close();
  });
  afterEach(() => proxy.clear());
  afterAll(async () => {
    await close?.();
    await proxy?.close();
    await model?.close();
    await table?.close();
    environment?.restore();
  });

  it('answers a JSON caller 503 store_unavailable with Retry-After, not a 500 from the invocation timing out', { timeout: 30_000 }, async () => {
    proxy.inject({ operation: 'Query', kind: 'hang', times: 1_000 });
    const requestsBefore = model.requests.length;
    const stream = responseStream();

    await streamHandler(askEvent(`c-${randomUUID()}`, { message: 'hello' }), stream, lambdaContext({ functionName: 'stream', remainingMs: 3_000 }));

    const { prelude, body } = splitLambdaStream(stream.bytes());
    expect(prelude.statusCode).toBe(503);
    expect(Number(prelude.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'store_unavailable', message: expect.stringMatching(/no tool ran/) } });
    expect(model.requests).toHaveLength(requestsBefore);
  });

  it('answers a JSON caller 503 turn_not_stored naming the call that ran, when the store stops answering after it', { timeout: 30_000 }, async () => {
    // The claim is written; the completion never is, until the invocation's end.
    proxy.inject({ operation: 'PutItem', when: (body) => (body.Item as { status?: { S?: string } } | undefined)?.status?.S === 'complete', kind: 'hang', times: 1_000 });
    const requestsBefore = model.requests.length;
    const stream = responseStream();

    await streamHandler(askEvent(`c-${randomUUID()}`, { message: '上海天气' }), stream, lambdaContext({ functionName: 'stream', remainingMs: 8_000 }));

    const { prelude, body } = splitLambdaStream(stream.bytes());
    expect(prelude.statusCode).toBe(503);
    expect(prelude.headers['x-should-retry']).toBe('false');
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'turn_not_stored', message: expect.stringMatching(/Tools ran in turn 1 \(getWeather \(call_weather\)\)/) } });
    expect(model.requests).toHaveLength(requestsBefore + 2);
  });

  it('gives the queue its partial batch response, the record failed, instead of throwing', { timeout: 60_000 }, async () => {
    proxy.inject({ operation: 'Query', kind: 'hang', times: 1_000 });
    const requestsBefore = model.requests.length;
    const record = sqsRecord('m-1', { conversationId: `c-${randomUUID()}`, message: 'hello', requestId: 'r-1' });

    // Enough for the worker to start the record (its start margin is 10 s, after the 2 s kept to answer), not for the store to come back.
    const response = await workerHandler(sqsEvent(record), lambdaContext({ functionName: 'worker', remainingMs: 13_000 }));

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(model.requests).toHaveLength(requestsBefore);
  });
});
