/**
 * The real Lambda entry functions/stream.ts, invoked as the Lambda runtime invokes a streaming
 * function: (API Gateway REST proxy event, response stream, context). The response stream captures
 * the bytes, which are read back as the runtime's wire format (metadata prelude, 8 NUL bytes, body)
 * and the body as Server-Sent Events. On dynalite, the demo MCP server and the scripted model server.
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, StreamifyHandler } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { stubLambdaEnvironment } from '../support/lambda-environment.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';
import { eventNames, eventStreamReader, splitLambdaStream } from '../support/sse-client.ts';
import { lambdaContext } from '../support/lambda-context.ts';
import { requestTag } from '../../lib/front-doors/native/stream-ids.ts';

const baseEvent: APIGatewayProxyEvent = JSON.parse(readFileSync(new URL('../fixtures/apigateway/rest-proxy-iam.json', import.meta.url), 'utf8'));
const EVENT_STREAM = 'text/event-stream';
const JSON_TYPE = 'application/json; charset=utf-8';
/** Without CORS_ALLOW_ORIGINS every origin may read responses (the stack narrows it). */
const CORS = { 'access-control-allow-origin': '*' };
const modelFailure = { status: 500, body: { error: { message: 'upstream exploded', type: 'server_error' } }, headers: { 'x-should-retry': 'false' } };

/** A REST proxy event for a conversation route, as API Gateway sends it (header names as the client wrote them). */
function restEvent(method: string, conversationId: string, options: { suffix?: '/messages'; body?: string | null; accept?: string } = {}): APIGatewayProxyEvent {
  const resource = `/conversations/{conversationId}${options.suffix ?? ''}`;
  const path = `/conversations/${conversationId}${options.suffix ?? ''}`;
  const headers = { ...baseEvent.headers, Accept: options.accept ?? 'application/json' };
  return {
    ...baseEvent,
    resource,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value!]])),
    pathParameters: { conversationId },
    body: options.body ?? null,
    requestContext: { ...baseEvent.requestContext, resourcePath: resource, httpMethod: method, path: `/prod${path}` },
  };
}

const ask = (conversationId: string, message: unknown, accept = EVENT_STREAM) =>
  restEvent('POST', conversationId, { suffix: '/messages', accept, body: typeof message === 'string' ? message : JSON.stringify(message) });

/** A response stream like the runtime's: a Writable with setContentType. `onText` sees all bytes so far. */
function responseStream(onText?: (text: string, stream: Writable) => void) {
  const chunks: Buffer[] = [];
  const captured = { contentType: undefined as string | undefined, bytes: () => Buffer.concat(chunks) };
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
      onText?.(captured.bytes().toString('utf8'), stream);
    },
  });
  return Object.assign(stream, { captured, setContentType: (type: string) => void (captured.contentType = type) });
}

describe('functions/stream.ts, the streaming Lambda entry', () => {
  let table: LocalTable;
  let model: ScriptedOpenAIServer;
  let environment: { restore(): void } | undefined;
  let handler: StreamifyHandler<APIGatewayProxyEvent, void>;
  let bufferedHandler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  let close: () => Promise<void>;
  let metrics: { publishStoredMetrics(): void };

  /** Invokes the handler and reads back what it wrote. */
  async function invoke(event: APIGatewayProxyEvent, stream = responseStream()) {
    await handler(event, stream, lambdaContext({ functionName: 'stream' }));
    const { prelude, body } = splitLambdaStream(stream.captured.bytes());
    const reader = eventStreamReader();
    if (prelude.headers['content-type']?.startsWith(EVENT_STREAM)) reader.feed(body);
    return { contentType: stream.captured.contentType, prelude, body, received: reader.received, events: reader.events };
  }

  beforeAll(async () => {
    table = await startLocalTable();
    model = await startScriptedOpenAIServer([
      // 1. the streamed turn: two tool calls, then an answer slow enough for heartbeats
      toolCallsReply([{ id: 'call_sh', name: 'getWeather', arguments: { city: '上海' } }, { id: 'call_bj', name: 'getWeather', arguments: { city: '北京' } }]),
      { status: 200, body: textReply('上海晴，北京多云。'), delayMs: 400 },
      // 2. the JSON client
      textReply('JSON 的回答'),
      // 4. model failures: before any tool (stream, then JSON), and after a tool ran
      modelFailure,
      modelFailure,
      toolCallsReply([{ id: 'call_tool_first', name: 'getWeather', arguments: { city: '深圳' } }]),
      modelFailure,
      // 5. the busy conversation (the second request never reaches the model)
      { status: 200, body: textReply('慢慢来'), delayMs: 1_500 },
      // 6. the client that hangs up
      toolCallsReply([{ id: 'call_gone', name: 'getWeather', arguments: { city: '广州' } }]),
      { status: 200, body: textReply('广州有雨'), delayMs: 300 },
    ]);
    environment = stubLambdaEnvironment({ agentYml: ['model: { maxRetries: 0 }', 'http: { heartbeatSeconds: 0.05 }'], modelBaseURL: model.baseURL, table });
    const entry = await import('../../functions/stream.ts');
    handler = entry.handler;
    bufferedHandler = (await import('../../functions/health-and-fallbacks.ts')).handler as unknown as typeof bufferedHandler;
    close = () => entry.agent.close();
    metrics = (await import('../../functions/runtime.ts')).metrics;
  });

  afterAll(async () => {
    await close?.();
    await model?.close();
    await table?.close();
    environment?.restore();
  });

  it('streams round-start, each tool call and result, the next round, then turn-end with the full turn result', async () => {
    // Prepare: note whether the turn had ended each time the metrics middleware flushed.
    const stream = responseStream();
    const turnEndedAtFlush: boolean[] = [];
    const flush = vi.spyOn(metrics, 'publishStoredMetrics').mockImplementation(() => void turnEndedAtFlush.push(stream.captured.bytes().includes('event: turn-end')));

    // Act
    const response = await invoke(ask('sse-weather', { message: '上海和北京的天气？', requestId: 'req-sse-1' }), stream);
    flush.mockRestore();

    // Assess

    // The runtime's wire format: the prelude carries the status and headers.
    expect(response.contentType).toBe('application/vnd.awslambda.http-integration-response');
    expect(response.prelude).toEqual({ statusCode: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', ...CORS } });
    // The answer's text arrives as deltas before turn-end (the model streamed), and adds up to the reply.
    const deltas = response.events.filter((event) => event.event === 'text-delta');
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.map((event) => (event.data as { text: string }).text).join('')).toBe((response.events.at(-1)!.data as { reply: string }).reply);
    response.events = response.events.filter((event) => event.event !== 'text-delta');
    expect(eventNames(response)).toEqual(['round-start', 'tool-call', 'tool-call', 'tool-result', 'tool-result', 'round-start', 'turn-end']);
    // Ids name the turn (conversation, turn, a tag of its request) and the event's place in it; deltas
    // have none. The calls run side by side: a result that comes before the first call's has no id.
    const tag = requestTag('req-sse-1');
    expect(response.events.map((event) => event.id)).toEqual([
      `sse-weather:1:${tag}:round-1`,
      `sse-weather:1:${tag}:call-1-1`,
      `sse-weather:1:${tag}:call-1-2`,
      response.events[3]!.id === undefined ? undefined : `sse-weather:1:${tag}:result-1-1`,
      `sse-weather:1:${tag}:result-1-2`,
      `sse-weather:1:${tag}:round-2`,
      `sse-weather:1:${tag}:end`,
    ]);
    expect(response.events.map((event) => event.data)).toEqual([
      { round: 1 },
      { round: 1, id: 'call_sh', name: 'getWeather', arguments: { city: '上海' } },
      { round: 1, id: 'call_bj', name: 'getWeather', arguments: { city: '北京' } },
      { round: 1, id: 'call_sh', name: 'getWeather', ok: true, durationMs: expect.any(Number), content: expect.stringContaining('"city":"上海"') },
      { round: 1, id: 'call_bj', name: 'getWeather', ok: true, durationMs: expect.any(Number), content: expect.stringContaining('"city":"北京"') },
      { round: 2 },
      {
        conversationId: 'sse-weather',
        turn: 1,
        reply: '上海晴，北京多云。',
        stopReason: 'completed',
        rounds: 2,
        toolCalls: [
          { id: 'call_sh', name: 'getWeather', arguments: { city: '上海' }, ok: true, durationMs: expect.any(Number) },
          { id: 'call_bj', name: 'getWeather', arguments: { city: '北京' }, ok: true, durationMs: expect.any(Number) },
        ],
        usage: { promptTokens: 188 + 192, completionTokens: 16 + 171, conversation: { promptTokens: 188 + 192, completionTokens: 16 + 171 } },
      },
    ]);
    // The slow second answer is bridged by heartbeat comments, sent while the turn ran.
    const turnEnd = response.received.indexOf(response.events[6]!);
    const secondRound = response.received.indexOf(response.events[5]!);
    expect(response.received.slice(secondRound, turnEnd).filter((item) => item.kind === 'comment').length).toBeGreaterThan(0);
    expect(response.received.filter((item) => item.kind === 'comment').every((item) => item.text === 'heartbeat')).toBe(true);
    expect(response.body).toMatch(/^: heartbeat$/m);
    // Powertools' middlewares finish with the turn, not when the stream starts.
    expect(turnEndedAtFlush).toEqual([true]);
  });

  it('gives a client that does not ask for events exactly the buffered JSON response', async () => {
    const streamed = await invoke(ask('json-client', { message: '你好', requestId: 'req-json-1' }, 'application/json'));
    expect(streamed.prelude).toEqual({ statusCode: 200, headers: { 'content-type': JSON_TYPE, ...CORS } });
    expect(JSON.parse(streamed.body)).toMatchObject({ conversationId: 'json-client', turn: 1, reply: 'JSON 的回答', stopReason: 'completed' });

    // The buffered entry replays the same stored turn (same requestId): same status, headers and body.
    const buffered = await bufferedHandler(ask('json-client', { message: '你好', requestId: 'req-json-1' }, 'application/json'), lambdaContext({ functionName: 'stream' }));
    expect({ statusCode: buffered.statusCode, headers: buffered.headers }).toEqual(streamed.prelude);
    expect(JSON.parse(buffered.body)).toEqual(JSON.parse(streamed.body));
    // And a read is byte for byte the same from either entry.
    const readStreamed = await invoke(restEvent('GET', 'json-client', { accept: EVENT_STREAM }));
    const readBuffered = await bufferedHandler(restEvent('GET', 'json-client', { accept: EVENT_STREAM }), lambdaContext({ functionName: 'stream' }));
    expect(readStreamed.prelude).toEqual({ statusCode: readBuffered.statusCode, headers: readBuffered.headers });
    expect(readStreamed.body).toBe(readBuffered.body);
  });

  it.each([
    ['malformed JSON', '{"message": ', 400, 'malformed_json'],
    ['an unknown field', { question: 'hi' }, 400, 'unknown_field'],
    ['an empty message', { message: ' ' }, 400, 'empty_message'],
  ])('answers %s with its 4xx JSON response, not a stream, even to an event-stream client', async (_, body, status, code) => {
    const requestsBefore = model.requests.length;
    const response = await invoke(ask('bad-input', body));
    expect(response.prelude).toEqual({ statusCode: status, headers: { 'content-type': JSON_TYPE, ...CORS } });
    expect(JSON.parse(response.body)).toMatchObject({ error: { code } });
    expect(model.requests).toHaveLength(requestsBefore);
  });

  // The stream commits to 200 at round-start, which comes before every model call: a model failure
  // therefore always reaches an event-stream client as an `error` event carrying the status (502, or
  // 504 for a timeout) the JSON API answers with.
  it('reports a model failure before any tool ran as an error event with status 502, and stores nothing', async () => {
    const streamed = await invoke(ask('model-down', { message: '你好' }));
    expect(streamed.prelude.statusCode).toBe(200);
    expect(eventNames(streamed)).toEqual(['round-start', 'error']);
    expect(streamed.events[1]!.data).toEqual({ error: { code: 'model_unavailable', message: expect.stringMatching(/HTTP 500\).*history is unchanged/) }, status: 502 });
    // The provider's own words are for the log, not for the caller.
    expect(JSON.stringify(streamed.events[1]!.data)).not.toContain('upstream exploded');

    const json = await invoke(ask('model-down', { message: '你好' }, 'application/json'));
    expect(json.prelude).toEqual({ statusCode: 502, headers: { 'content-type': JSON_TYPE, ...CORS } });
    const { status, ...errorBody } = streamed.events[1]!.data as { status: number };
    expect({ status: json.prelude.statusCode, ...JSON.parse(json.body) }).toEqual({ status, ...errorBody });
    expect((await invoke(restEvent('GET', 'model-down'))).prelude.statusCode).toBe(404);
  });

  it('ends a turn stored after the model failed with turn-end: the turn result, stopReason error, naming the failure', async () => {
    const response = await invoke(ask('model-down-later', { message: '深圳天气' }));
    expect(eventNames(response)).toEqual(['round-start', 'tool-call', 'tool-result', 'round-start', 'turn-end']);
    expect(response.events[4]!.data).toMatchObject({
      conversationId: 'model-down-later',
      turn: 1,
      stopReason: 'error',
      error: { code: 'model_unavailable' },
      toolCalls: [{ id: 'call_tool_first', ok: true }],
    });
    expect((await invoke(restEvent('GET', 'model-down-later'))).prelude.statusCode).toBe(200);
  });

  it('answers a second request on a busy conversation with the 409 JSON response, not a stream', async () => {
    // Prepare: a turn that has started (its round-start is out) and waits for the slow model.
    let started!: () => void;
    const roundStarted = new Promise<void>((resolve) => (started = resolve));
    const first = invoke(ask('busy', { message: '第一个问题' }), responseStream((text) => text.includes('event: round-start') && started()));
    await roundStarted;

    // Act
    const second = await invoke(ask('busy', { message: '第二个问题' }));

    // Assess
    expect(second.prelude).toEqual({ statusCode: 409, headers: { 'content-type': JSON_TYPE, 'retry-after': expect.stringMatching(/^\d+$/), ...CORS } });
    expect(JSON.parse(second.body)).toMatchObject({ error: { code: 'conversation_busy' } });
    expect(eventNames(await first).filter((name) => name !== 'text-delta')).toEqual(['round-start', 'turn-end']);
  });

  it('finishes and stores the turn when the client disconnects mid-turn, and the invocation lasts until then', async () => {
    // Act: the client goes away as soon as the first event has been written.
    const stream = responseStream((text, self) => text.includes('event: round-start') && self.destroy());
    try {
      await handler(ask('hung-up', { message: '广州天气' }), stream, lambdaContext({ functionName: 'stream' }));
    } catch {
      // The broken stream is the invocation's error to report (middy rethrows it); the turn is what must survive.
    }

    // Assess: by the time the invocation ends, the turn is stored.
    const read = await invoke(restEvent('GET', 'hung-up'));
    expect(read.prelude.statusCode).toBe(200);
    expect(JSON.parse(read.body)).toMatchObject({ conversationId: 'hung-up', turns: [{ turn: 1, stopReason: 'completed' }] });
    expect(stream.captured.bytes().toString('utf8')).not.toContain('turn-end');
  });
});
