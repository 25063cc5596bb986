import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/core/logger.ts';
import { ModelError } from '../../lib/core/errors.ts';
import { createHttpHandler } from '../../lib/front-doors/handlers.ts';
import type { HttpRequest } from '../../lib/http/types.ts';
import { textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

function http(script: ScriptedStep[] | null, yaml?: string) {
  const fixture = agentFixture(script, yaml ? { yaml } : {});
  const handle = createHttpHandler({ agent: fixture.agent, logger: silentLogger, maxBodyBytes: fixture.config.http.maxBodyBytes });
  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
    const request: HttpRequest = { method, path, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) };
    const response = await handle(request);
    return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined };
  };
  return { ...fixture, send };
}

describe('HTTP contract', () => {
  it('creates a conversation with 201 and continues it with 200', async () => {
    const { send } = http([textReply('first'), textReply('second')]);
    const created = await send('POST', '/conversations', { message: 'hi' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ turn: 1, reply: 'first', stopReason: 'completed', rounds: 1, toolCalls: [], usage: { promptTokens: 10, completionTokens: 5 } });
    const next = await send('POST', `/conversations/${created.body.conversationId}/messages`, { message: 'again', requestId: 'r-2' });
    expect(next).toMatchObject({ status: 200, body: { conversationId: created.body.conversationId, turn: 2, reply: 'second' } });
  });

  it('answers a retried POST /conversations with the same requestId from the stored turn', async () => {
    const { send, model } = http([textReply('once')]);
    const first = await send('POST', '/conversations', { message: 'hi', requestId: 'create-1' });
    const retry = await send('POST', '/conversations', { message: 'hi', requestId: 'create-1' });
    expect(retry).toEqual(first);
    expect(first.status).toBe(201);
    expect(model!.requests).toHaveLength(1);
  });

  it('lets callers bring their own conversation id', async () => {
    const { send } = http([textReply('hello')]);
    const response = await send('POST', '/conversations/my-own-id/messages', { message: 'hi' });
    expect(response).toMatchObject({ status: 200, body: { conversationId: 'my-own-id', turn: 1 } });
  });

  it('returns every stored message and deletes the conversation', async () => {
    const { send } = http([toolCallsReply([{ id: 'c1', name: 'getWeather', arguments: { city: '上海' } }]), textReply('晴')]);
    await send('POST', '/conversations/c-1/messages', { message: '天气' });
    const read = await send('GET', '/conversations/c-1');
    expect(read.status).toBe(200);
    expect(read.body.turns[0].messages).toEqual([
      { role: 'user', content: '天气' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'getWeather', arguments: '{"city":"上海"}' }] },
      { role: 'tool', toolCallId: 'c1', name: 'getWeather', content: '{"city":"上海","condition":"晴"}' },
      { role: 'assistant', content: '晴', toolCalls: [] },
    ]);
    expect((await send('DELETE', '/conversations/c-1')).status).toBe(204);
    expect(await send('GET', '/conversations/c-1')).toMatchObject({ status: 404, body: { error: { code: 'conversation_not_found' } } });
  });

  it('reports health', async () => {
    const { send } = http([]);
    expect(await send('GET', '/health')).toMatchObject({ status: 200, body: { status: 'ok', tools: 2 } });
  });

  it.each([
    ['malformed JSON', 'POST', '/conversations', '{"message": ', undefined, 400, 'malformed_json', /not valid JSON/],
    ['a body that is not an object', 'POST', '/conversations', '["hi"]', undefined, 400, 'invalid_body', /must be a JSON object/],
    ['an empty body', 'POST', '/conversations', '', undefined, 400, 'missing_body', /body is empty/],
    ['a missing message', 'POST', '/conversations', { question: 'hi' }, undefined, 400, 'unknown_field', /Unknown field "question"/],
    ['no message field at all', 'POST', '/conversations', {}, undefined, 400, 'missing_message', /"message" field/],
    ['a non-string message', 'POST', '/conversations', { message: ['hi'] }, undefined, 400, 'invalid_message', /must be a string, not an array/],
    ['an empty message', 'POST', '/conversations', { message: '' }, undefined, 400, 'empty_message', /is empty/],
    ['an over-long message', 'POST', '/conversations', { message: 'x'.repeat(101) }, undefined, 400, 'message_too_long', /limit is 100/],
    ['a non-string requestId', 'POST', '/conversations', { message: 'hi', requestId: 7 }, undefined, 400, 'invalid_request_id', /requestId/],
    ['a bad conversation id', 'POST', '/conversations/bad%20id/messages', { message: 'hi' }, undefined, 400, 'invalid_conversation_id', /conversationId/],
    ['a conversation id that is not valid URL encoding', 'GET', '/conversations/%E0', undefined, undefined, 400, 'invalid_conversation_id', /not a valid URL-encoded conversation id/],
    ['an unknown conversation', 'GET', '/conversations/unknown', undefined, undefined, 404, 'conversation_not_found', /POST \/conversations/],
    ['an unknown route', 'GET', '/nope', undefined, undefined, 404, 'route_not_found', /The API has/],
    ['a wrong method', 'PUT', '/conversations', { message: 'hi' }, undefined, 405, 'method_not_allowed', /use POST/],
    ['a body that is not JSON', 'POST', '/conversations', 'message=hi', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'unsupported_media_type', /Content-Type: application\/json/],
    ['an oversized body', 'POST', '/conversations', { message: 'x'.repeat(300) }, undefined, 413, 'body_too_large', /limit is 256/],
  ])('answers %s with a 4xx that says what to fix', async (_, method, path, body, headers, status, code, message) => {
    const { send, model } = http([textReply('never')], 'http: { maxMessageChars: 100, maxBodyBytes: 256 }');
    const response = await send(method, path, body, headers);
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.message).toMatch(message);
    expect(model!.requests).toHaveLength(0);
  });

  it('names the allowed methods on a 405', async () => {
    const { send } = http([]);
    expect((await send('PATCH', '/conversations/abc')).headers.allow).toBe('GET, DELETE');
  });

  it('answers 409 to a second writer on a busy conversation', async () => {
    let finish!: () => void;
    const { send } = http([async () => { await new Promise<void>((resolve) => (finish = resolve)); return textReply('done'); }]);
    const first = send('POST', '/conversations/busy/messages', { message: 'one' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await send('POST', '/conversations/busy/messages', { message: 'two' })).toMatchObject({ status: 409, body: { error: { code: 'conversation_busy' } } });
    finish();
    expect((await first).status).toBe(200);
  });

  it('answers 503 with set-up instructions when no model is configured', async () => {
    const { send } = http(null);
    const response = await send('POST', '/conversations', { message: 'hi' });
    expect(response).toMatchObject({ status: 503, body: { error: { code: 'model_not_configured' } } });
    expect(response.body.error.message).toMatch(/OPENAI_API_KEY.*Ollama.*vLLM/);
  });

  it.each([
    ['a failing model with 502', new ModelError('model_unavailable', 'HTTP 500 from the provider'), 502],
    ['a model timeout with 504', new ModelError('model_timeout', 'no answer within 60 s', { timeout: true }), 504],
  ])('answers %s and keeps the stored history intact', async (_, failure, status) => {
    const { send } = http([textReply('kept'), failure]);
    await send('POST', '/conversations/stable/messages', { message: 'first' });
    const failed = await send('POST', '/conversations/stable/messages', { message: 'second' });
    expect(failed.status).toBe(status);
    expect(failed.body.error.code).toBe(failure.code);
    const history = await send('GET', '/conversations/stable');
    expect(history.body.turns).toHaveLength(1);
    expect(history.body.turns[0].messages.at(-1)).toEqual({ role: 'assistant', content: 'kept', toolCalls: [] });
  });

  it('answers a turn stored after the model failed with 200, the turn result naming the failure, and x-should-retry: false', async () => {
    const { send } = http([toolCallsReply([{ id: 'c1', name: 'getWeather', arguments: { city: '上海' } }]), new ModelError('model_unavailable', 'HTTP 500')]);
    const response = await send('POST', '/conversations/partial/messages', { message: 'hi' });
    expect(response).toMatchObject({
      status: 200,
      headers: { 'x-should-retry': 'false' },
      body: { turn: 1, stopReason: 'error', error: { code: 'model_unavailable', message: 'HTTP 500' }, toolCalls: [{ id: 'c1', ok: true }], reply: expect.stringMatching(/could not finish/) },
    });
    expect((await send('GET', '/conversations/partial')).body.turns).toHaveLength(1);
  });

  it('answers a new conversation stored after a failure with 201, never to be retried', async () => {
    const { send } = http([toolCallsReply([{ id: 'c1', name: 'getWeather', arguments: { city: '上海' } }]), new ModelError('model_timeout', 'no answer', { timeout: true })]);
    const response = await send('POST', '/conversations', { message: 'hi' });
    expect(response).toMatchObject({ status: 201, headers: { 'x-should-retry': 'false' }, body: { stopReason: 'error', error: { code: 'model_timeout', timeout: true } } });
  });
});
