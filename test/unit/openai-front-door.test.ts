/**
 * The OpenAI-compatible front door over the agent (scripted model, in-memory store, fake tools):
 * the response and chunk shapes, conversations, and errors with the native API's statuses.
 */
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../lib/core/errors.ts';
import { estimateTokens } from '../../lib/core/history.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { createHttpHandler, createStreamingHttpHandler } from '../../lib/front-doors/handlers.ts';
import { configuredFrontDoors } from '../../lib/front-doors/configured.ts';
import { withIdleLimit } from '../../lib/http/dispatch.ts';
import { isEventStreamResponse, type StreamingHttpResponse } from '../../lib/http/event-stream.ts';
import type { HttpRequest } from '../../lib/http/types.ts';
import { textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

const APPROVALS = 'mcpServers:\n  fake: { command: unused, requireApproval: destructive }';
const weather = (id = 'call_w') => toolCallsReply([{ id, name: 'getWeather', arguments: { city: '上海' } }]);

function frontDoor(script: ScriptedStep[] | null, yaml = 'maxRounds: 4\nopenaiApi: { modelId: shop-agent }') {
  const fixture = agentFixture(script, { yaml });
  const handle = createStreamingHttpHandler({ agent: fixture.agent, logger: silentLogger, maxBodyBytes: fixture.config.http.maxBodyBytes, heartbeatMs: 1_000, openaiApi: fixture.config.openaiApi });
  const request = (body: unknown, headers: Record<string, string> = {}, path = '/v1/chat/completions', method = 'POST'): HttpRequest => ({
    method,
    path,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const send = async (body: unknown, headers?: Record<string, string>, path?: string, method?: string) => read(await handle(request(body, headers, path, method)));
  return { ...fixture, handle, request, send };
}

/** A response as a test reads it: JSON parsed, or a stream's `data:` payloads (and [DONE]) in order. */
async function read(response: StreamingHttpResponse) {
  if (!isEventStreamResponse(response)) return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined, data: [] as unknown[] };
  let text = '';
  for await (const piece of response.body) text += String(piece);
  await response.body.settled;
  return { status: response.statusCode, headers: response.headers, body: undefined, text, data: dataOf(text) };
}

const dataOf = (text: string): unknown[] =>
  text.split('\n\n').filter((frame) => frame.startsWith('data: ')).map((frame) => frame.slice('data: '.length)).map((data) => (data === '[DONE]' ? data : JSON.parse(data)));

const ask = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'shop-agent', messages: [{ role: 'user', content }], ...extra });

describe('GET /v1/models', () => {
  it('lists the agent as the one model, under agent.yml’s openaiApi.modelId', async () => {
    const { send } = frontDoor(null);
    const listed = await send(undefined, {}, '/v1/models', 'GET');
    expect(listed).toMatchObject({ status: 200, body: { object: 'list', data: [{ id: 'shop-agent', object: 'model', created: expect.any(Number), owned_by: 'mcp-agent' }] } });
    expect(await send(undefined, {}, '/v1/models/shop-agent', 'GET')).toMatchObject({ status: 200, body: { id: 'shop-agent', object: 'model' } });
    expect(await send(undefined, {}, '/v1/models/gpt-4o', 'GET')).toMatchObject({ status: 404, body: { error: { type: 'invalid_request_error', code: 'model_not_found', param: 'model' } } });
  });

  it('answers as mcp-agent by default', async () => {
    const { send } = frontDoor(null, 'maxRounds: 4');
    expect((await send(undefined, {}, '/v1/models', 'GET')).body.data[0].id).toBe('mcp-agent');
  });
});

describe('POST /v1/chat/completions, not streamed', () => {
  it('runs the agent’s tool rounds and answers in the chat.completion shape, the turn in mcp_agent', async () => {
    // Prepare
    const { send, model, agent } = frontDoor([weather(), textReply('上海今天晴。', { promptTokens: 30, completionTokens: 7 })]);

    // Act
    const response = await send({
      model: 'shop-agent',
      messages: [
        { role: 'system', content: 'Answer in one sentence.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello! How can I help?' },
        { role: 'user', content: '上海天气怎么样？' },
      ],
      temperature: 0.2,
    });

    // Assess: OpenAI's shape, exactly.
    expect(response.status).toBe(200);
    const conversationId = response.body.mcp_agent.conversationId as string;
    expect(response.headers['x-conversation-id']).toBe(conversationId);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^chatcmpl-[0-9a-f]{32}$/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'shop-agent',
      choices: [{ index: 0, message: { role: 'assistant', content: '上海今天晴。', refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 },
      mcp_agent: {
        conversationId,
        turn: 1,
        reply: '上海今天晴。',
        stopReason: 'completed',
        rounds: 2,
        toolCalls: [{ id: 'call_w', name: 'getWeather', arguments: { city: '上海' }, ok: true, durationMs: expect.any(Number) }],
        usage: { promptTokens: 40, completionTokens: 12, conversation: { promptTokens: 40, completionTokens: 12 } },
      },
    });
    expect(Math.abs(response.body.created - Date.now() / 1000)).toBeLessThan(60);
    // The model saw the configured prompt with the client's instructions, the client's history, the question.
    const sent = model!.requests[0]!.messages;
    expect(sent[0]!.content).toMatch(/\n\nAnswer in one sentence\.$/);
    expect(sent.slice(1)).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello! How can I help?', toolCalls: [] },
      { role: 'user', content: '上海天气怎么样？' },
    ]);
    // And the turn is stored as a new conversation that starts with that history.
    const stored = await agent.getConversation({ conversationId });
    expect(stored.turns[0]!.messages.slice(0, 3)).toEqual(sent.slice(1));
  });

  it('sends a long stateless chat within history.maxTokens, as a stored history would be, and stores what it sent', async () => {
    // Prepare: a chat of 30 exchanges of about 260 estimated tokens each, and a budget of 1,000.
    const { send, model, agent } = frontDoor([textReply('Noted.')], 'history: { maxTokens: 1000 }');
    const chat = Array.from({ length: 30 }, (_, index) => [
      { role: 'user', content: `Question ${index}: ${'q'.repeat(500)}` },
      { role: 'assistant', content: `Answer ${index}: ${'a'.repeat(500)}` },
    ]).flat();

    // Act
    const response = await send({ model: 'mcp-agent', messages: [...chat, { role: 'user', content: 'And now?' }] });

    // Assess: the newest whole exchanges (and the one before them, condensed, when it fits), the question.
    expect(response.status).toBe(200);
    const sent = model!.requests[0]!.messages.slice(1);
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'And now?' });
    expect(estimateTokens(sent.slice(0, -1))).toBeLessThanOrEqual(1000);
    expect(sent.slice(0, -1).map((message) => message.content!.split(':')[0])).toEqual(['Question 27', 'Answer 27', 'Question 28', 'Answer 28', 'Question 29', 'Answer 29']);
    const stored = await agent.getConversation({ conversationId: response.body.mcp_agent.conversationId });
    expect(stored.turns[0]!.messages.slice(0, -1)).toEqual(sent);
  });

  it('keeps each owner’s conversations apart: the same id named by another owner is that owner’s own', async () => {
    const { handle, request, model } = frontDoor([textReply('for ada'), textReply('for bob')]);
    const as = (owner: string, content: string) => handle({ ...request(ask(content), { 'x-conversation-id': 'shared-name' }), owner }).then(read);

    const ada = await as('ada', 'ada’s secret question');
    const bob = await as('bob', 'bob’s question');

    expect(ada.body.mcp_agent).toMatchObject({ conversationId: 'shared-name', turn: 1 });
    expect(bob.body.mcp_agent).toMatchObject({ conversationId: 'shared-name', turn: 1 });
    expect(model!.requests[1]!.messages.slice(1)).toEqual([{ role: 'user', content: 'bob’s question' }]);
  });

  it('shows the text of a round that also called tools before the answer, as a stream would', async () => {
    const { send } = frontDoor([{ ...weather(), content: 'Let me check.' }, textReply('Sunny.')]);
    const response = await send(ask('Weather?'));
    expect(response.body.choices[0].message.content).toBe('Let me check.\n\nSunny.');
    expect(response.body.mcp_agent.reply).toBe('Sunny.');
  });

  it('continues a stored conversation named by X-Conversation-Id, with the last user message as the question', async () => {
    const { send, model } = frontDoor([textReply('first answer'), textReply('second answer')]);
    const first = await send(ask('first question'), { 'x-conversation-id': 'chat-42' });
    expect(first.headers['x-conversation-id']).toBe('chat-42');

    const second = await send(
      { model: 'shop-agent', messages: [{ role: 'user', content: 'ignored: the stored history wins' }, { role: 'assistant', content: 'ignored' }, { role: 'user', content: 'second question' }] },
      { 'x-conversation-id': 'chat-42' },
    );

    expect(second.body.mcp_agent).toMatchObject({ conversationId: 'chat-42', turn: 2 });
    expect(model!.requests[1]!.messages.slice(1)).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer', toolCalls: [] },
      { role: 'user', content: 'second question' },
    ]);
  });

  it('continues a conversation named by metadata.conversation_id', async () => {
    const { send } = frontDoor([textReply('one'), textReply('two')]);
    await send(ask('q1', { metadata: { conversation_id: 'meta-1', source: 'crm' } }));
    const second = await send(ask('q2', { metadata: { conversation_id: 'meta-1' } }));
    expect(second.body.mcp_agent).toMatchObject({ conversationId: 'meta-1', turn: 2 });
  });

  it('answers a retry with the same Idempotency-Key from the stored turn, without running it again', async () => {
    const { send, model } = frontDoor([weather(), textReply('晴')]);
    const first = await send(ask('天气'), { 'idempotency-key': 'req-7' });
    const retry = await send(ask('天气'), { 'idempotency-key': 'req-7' });
    expect(retry.body.mcp_agent).toEqual(first.body.mcp_agent);
    expect(retry.body.choices[0].message.content).toBe('晴');
    expect(model!.requests).toHaveLength(2);
  });

  it('shows an approval pause in mcp_agent, with finish_reason stop and the reply asking for it', async () => {
    const { send } = frontDoor([toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD7'] } }])], APPROVALS);
    const response = await send(ask('取消订单 ORD7', { model: 'mcp-agent' }));
    expect(response.body.choices[0].finish_reason).toBe('stop');
    expect(response.body.choices[0].message.content).toMatch(/^I need your approval before I run batchCancelOrdersByOrderNo \(c1\)/);
    expect(response.body.mcp_agent).toMatchObject({
      stopReason: 'approval_required',
      pendingApprovals: [{ toolCallId: 'c1', name: 'batchCancelOrdersByOrderNo', server: 'fake', arguments: { orderNos: ['ORD7'] } }],
    });
  });

  it('says `length` when the turn was cut short by the round limit', async () => {
    const { send } = frontDoor([weather('a'), weather('b')], 'maxRounds: 2');
    const response = await send(ask('weather', { model: 'mcp-agent' }));
    expect(response.body.choices[0].finish_reason).toBe('length');
    expect(response.body.mcp_agent.stopReason).toBe('max_rounds');
  });

  it('accepts and ignores the parameters that do not matter to the agent, and unknown ones', async () => {
    const { send, model } = frontDoor([textReply('ok')]);
    const response = await send(
      ask('hi', {
        temperature: 1.5, top_p: 0.1, max_tokens: 5, max_completion_tokens: 5, stop: ['\n'], seed: 1, user: 'u-1', presence_penalty: 1, frequency_penalty: 1,
        logit_bias: {}, logprobs: true, top_logprobs: 2, tool_choice: 'auto', parallel_tool_calls: false, tools: [], n: 1, response_format: { type: 'text' },
        modalities: ['text'], reasoning_effort: 'low', store: false, service_tier: 'auto', stream: false, vendor_extension: { anything: true },
      }),
    );
    expect(response.status).toBe(200);
    expect(model!.requests[0]).not.toHaveProperty('temperature');
  });
});

describe('POST /v1/chat/completions with stream: true', () => {
  it('streams chat.completion.chunk data: the role, text as it is written, tool activity in mcp_agent, the finish, the usage, [DONE]', async () => {
    // Prepare
    const { send } = frontDoor([{ ...weather(), content: 'Let me check.' }, textReply('上海今天晴。', { promptTokens: 30, completionTokens: 7 })]);

    // Act
    const response = await send(ask('上海天气怎么样？', { stream: true, stream_options: { include_usage: true } }));

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const data = response.data as Array<Record<string, any>>;
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1);
    const [first] = chunks;
    const conversationId = first!.mcp_agent.data.conversationId as string;
    expect(response.headers['x-conversation-id']).toBe(conversationId);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ id: first!.id, object: 'chat.completion.chunk', created: first!.created, model: 'shop-agent' });
    }
    expect(first).toEqual({
      id: expect.stringMatching(/^chatcmpl-/), object: 'chat.completion.chunk', created: expect.any(Number), model: 'shop-agent',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      usage: null,
      mcp_agent: { event: 'turn-start', data: { conversationId, turn: 1 } },
    });
    const content = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(content).toBe('Let me check.\n\n上海今天晴。');
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(2);
    const activity = chunks.filter((chunk) => chunk.mcp_agent).map((chunk) => chunk.mcp_agent.event);
    expect(activity).toEqual(['turn-start', 'round-start', 'tool-call', 'tool-result', 'round-start', 'turn-end']);
    expect(chunks.find((chunk) => chunk.mcp_agent?.event === 'tool-call')).toMatchObject({
      choices: [{ index: 0, delta: {}, finish_reason: null }],
      mcp_agent: { data: { round: 1, id: 'call_w', name: 'getWeather', arguments: { city: '上海' } } },
    });
    // The tool call comes after the text its round wrote, before the next round's.
    const order = chunks.map((chunk) => chunk.mcp_agent?.event ?? chunk.choices[0]?.delta.content);
    expect(order.indexOf('tool-call')).toBeGreaterThan(order.indexOf('Let '));
    const last = chunks.at(-2)!;
    expect(last.choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' });
    expect(last.mcp_agent).toMatchObject({ event: 'turn-end', data: { conversationId, stopReason: 'completed', reply: '上海今天晴。', rounds: 2 } });
    expect(chunks.at(-1)).toEqual({ id: first!.id, object: 'chat.completion.chunk', created: first!.created, model: 'shop-agent', choices: [], usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 } });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('sends no usage field and no usage chunk unless stream_options.include_usage asks', async () => {
    const { send } = frontDoor([textReply('hi')]);
    const data = (await send(ask('hello', { stream: true }))).data as Array<Record<string, unknown>>;
    expect(data.at(-1)).toBe('[DONE]');
    expect(data.slice(0, -1).some((chunk) => 'usage' in chunk)).toBe(false);
    expect((data.at(-2) as { choices: Array<{ finish_reason: string }> }).choices[0]!.finish_reason).toBe('stop');
  });

  it('shows an approval pause as an approval-required chunk and the turn-end’s pendingApprovals', async () => {
    const { send } = frontDoor([toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD7'] } }])], APPROVALS);
    const chunks = ((await send(ask('取消订单 ORD7', { model: 'mcp-agent', stream: true }))).data as Array<Record<string, any>>).slice(0, -1);
    expect(chunks.find((chunk) => chunk.mcp_agent?.event === 'approval-required')?.mcp_agent.data.pendingApprovals).toEqual([
      { toolCallId: 'c1', name: 'batchCancelOrdersByOrderNo', server: 'fake', arguments: { orderNos: ['ORD7'] } },
    ]);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toMatch(/^I need your approval/);
    expect(chunks.at(-1)!.mcp_agent.data.stopReason).toBe('approval_required');
  });

  it('answers a conversation named by header with its id in X-Conversation-Id', async () => {
    const { send } = frontDoor([textReply('hi')]);
    const response = await send(ask('hello', { stream: true }), { 'x-conversation-id': 'streamed-1' });
    expect(response.headers['x-conversation-id']).toBe('streamed-1');
  });

  it('is collected whole by the buffered entry, which has no stream to write to', async () => {
    const fixture = agentFixture([textReply('hi')], { yaml: 'maxRounds: 4' });
    const handle = createHttpHandler({ agent: fixture.agent, logger: silentLogger, maxBodyBytes: 65_536, openaiApi: fixture.config.openaiApi });
    const response = await handle({ method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mcp-agent', stream: true, messages: [{ role: 'user', content: 'hello' }] }) });
    expect(response.statusCode).toBe(200);
    expect(dataOf(response.body).at(-1)).toBe('[DONE]');
    expect(dataOf(response.body).map((chunk) => (chunk as { choices?: Array<{ delta: { content?: string } }> }).choices?.[0]?.delta.content ?? '').join('')).toBe('hi');
  });
});

describe('front door errors', () => {
  it.each([
    ['client tools', { tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] }, 'tools'],
    ['client functions', { functions: [{ name: 'f', parameters: {} }] }, 'functions'],
    ['several choices', { n: 2 }, 'n'],
    ['an audio answer', { audio: { voice: 'alloy', format: 'wav' } }, 'audio'],
    ['audio output', { modalities: ['text', 'audio'] }, 'modalities'],
  ])('refuses %s with 400 unsupported_parameter, naming the parameter', async (_, extra, param) => {
    const { send, model } = frontDoor([textReply('never')]);
    const response = await send(ask('hi', extra));
    expect(response).toMatchObject({ status: 400, body: { error: { type: 'invalid_request_error', code: 'unsupported_parameter', param, message: expect.stringContaining(`"${param}" is not supported`) } } });
    expect(Object.keys(response.body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(model!.requests).toHaveLength(0);
  });

  it.each([
    ['no model', { messages: [{ role: 'user', content: 'hi' }] }, {}, 400, 'invalid_body', 'model'],
    ['another model', ask('hi', { model: 'gpt-4o' }), {}, 404, 'model_not_found', 'model'],
    ['an image', ask('x', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/a.png' } }] }] }), {}, 400, 'unsupported_content', 'messages[0].content[0].type'],
    ['a broken tool history', ask('x', { messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'getWeather', arguments: '{}' } }] }, { role: 'user', content: 'hi' }] }), {}, 400, 'invalid_messages', null],
    ['stream that is not a boolean', ask('hi', { stream: 'yes' }), {}, 400, 'invalid_body', 'stream'],
    ['a response format of another type', ask('hi', { response_format: { type: 'xml' } }), {}, 400, 'invalid_response_format', 'response_format'],
    ['a response format whose schema is not JSON Schema', ask('hi', { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'strin' } } } }), {}, 400, 'invalid_response_format', 'response_format'],
    ['two conversations named', ask('hi', { metadata: { conversation_id: 'a' } }), { 'x-conversation-id': 'b' }, 400, 'invalid_conversation_id', 'metadata.conversation_id'],
    ['a conversation id with a slash', ask('hi'), { 'x-conversation-id': 'a/b' }, 400, 'invalid_conversation_id', 'X-Conversation-Id'],
    ['an Idempotency-Key with spaces', ask('hi'), { 'idempotency-key': 'a b' }, 400, 'invalid_request_id', 'Idempotency-Key'],
    ['malformed JSON', '{"model": ', {}, 400, 'malformed_json', null],
    ['a form body', ask('hi'), { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'unsupported_media_type', null],
  ])('answers %s with an OpenAI-shaped error (%#)', async (_, body, headers, status, code, param) => {
    const { send } = frontDoor([textReply('never')]);
    expect(await send(body, headers)).toMatchObject({ status, body: { error: { type: 'invalid_request_error', code, param, message: expect.any(String) } } });
  });

  it('answers a body over http.maxBodyBytes with 413', async () => {
    const { send } = frontDoor([textReply('never')], 'http: { maxBodyBytes: 200 }');
    expect(await send(ask('x'.repeat(300), { model: 'mcp-agent' }))).toMatchObject({ status: 413, body: { error: { code: 'body_too_large' } } });
  });

  it('answers unknown paths and methods under /v1 in OpenAI’s shape', async () => {
    const { send } = frontDoor(null);
    expect(await send(undefined, {}, '/v1/embeddings')).toMatchObject({ status: 404, body: { error: { code: 'route_not_found', type: 'invalid_request_error' } } });
    const wrongMethod = await send(undefined, {}, '/v1/chat/completions', 'GET');
    expect(wrongMethod).toMatchObject({ status: 405, headers: { allow: 'POST' }, body: { error: { code: 'method_not_allowed' } } });
  });

  it('answers a question without a model configured with 503, streamed or not', async () => {
    const { send } = frontDoor(null);
    expect(await send(ask('hi'))).toMatchObject({ status: 503, body: { error: { code: 'model_not_configured', type: 'server_error' } } });
    expect(await send(ask('hi', { stream: true }))).toMatchObject({ status: 503, body: { error: { code: 'model_not_configured' } } });
  });

  it('answers a model failure with 502 and tells the SDKs not to retry what the service already retried', async () => {
    const { send } = frontDoor([new ModelError('model_unavailable', 'HTTP 500 from the provider')]);
    const response = await send(ask('hi'));
    expect(response).toMatchObject({ status: 502, headers: { 'x-should-retry': 'false' }, body: { error: { code: 'model_unavailable', type: 'server_error', param: null } } });
  });

  it('ends a stream whose first model call failed (the turn had started) with the error as its last data line', async () => {
    const { send } = frontDoor([new ModelError('model_unavailable', 'HTTP 500 from the provider')]);
    const response = await send(ask('hi', { stream: true }));
    expect(response.status).toBe(200);
    expect(response.data.at(-1)).toMatchObject({ error: { code: 'model_unavailable', type: 'server_error', message: expect.stringMatching(/retry the request/) } });
    expect(response.data).not.toContain('[DONE]');
  });

  it('answers a busy conversation with 409 and Retry-After, which the SDKs honour', async () => {
    // Prepare: a first turn that waits on the model until released.
    let release: (() => void) | undefined;
    const slow: ScriptedStep = () => new Promise((resolve) => (release = () => resolve(textReply('done'))));
    const { send } = frontDoor([slow]);
    const first = send(ask('slow'), { 'x-conversation-id': 'busy-1' });
    while (!release) await new Promise((resolve) => setTimeout(resolve, 5));

    // Act
    const second = await send(ask('again'), { 'x-conversation-id': 'busy-1' });
    release();

    // Assess
    expect(second).toMatchObject({ status: 409, headers: { 'retry-after': expect.stringMatching(/^\d+$/) }, body: { error: { code: 'conversation_busy', type: 'invalid_request_error' } } });
    expect((await first).status).toBe(200);
  });

  it('answers a spent token budget with 429 in OpenAI’s shape, telling the SDKs not to retry it', async () => {
    const { send } = frontDoor([textReply('first')], 'openaiApi: { modelId: shop-agent }\nlimits: { tokensPerConversation: 10 }');
    expect(await send(ask('first'), { 'x-conversation-id': 'spent' })).toMatchObject({ status: 200 });
    const response = await send(ask('again'), { 'x-conversation-id': 'spent' });
    expect(response).toMatchObject({ status: 429, headers: { 'x-should-retry': 'false' }, body: { error: { code: 'budget_exhausted', type: 'rate_limit_error', message: expect.stringMatching(/limits\.tokensPerConversation/) } } });
  });

  it('answers a turn stored after the model failed as a chat completion saying so, the turn in mcp_agent, never to be retried', async () => {
    const { send } = frontDoor([weather(), new ModelError('model_unavailable', 'HTTP 500')]);
    const response = await send(ask('天气'));
    expect(response).toMatchObject({
      status: 200,
      headers: { 'x-should-retry': 'false', 'x-conversation-id': expect.any(String) },
      body: {
        object: 'chat.completion',
        choices: [{ message: { role: 'assistant', content: expect.stringMatching(/could not finish/) }, finish_reason: 'stop' }],
        mcp_agent: { stopReason: 'error', error: { code: 'model_unavailable' }, toolCalls: [{ name: 'getWeather', ok: true }] },
      },
    });
  });

  it('ends a stream whose stored turn failed after it began as any turn ends: the reply, its finish_reason, [DONE]', async () => {
    const { send } = frontDoor([weather(), new ModelError('model_unavailable', 'HTTP 500')]);
    const response = await send(ask('天气', { stream: true }));
    expect(response.status).toBe(200);
    expect(response.data.at(-1)).toBe('[DONE]');
    const last = response.data.at(-2) as Record<string, any>;
    expect(last).toMatchObject({ choices: [{ finish_reason: 'stop' }], mcp_agent: { event: 'turn-end', data: { stopReason: 'error', error: { code: 'model_unavailable' } } } });
    expect(response.data.some((data) => typeof data === 'object' && data !== null && 'error' in data)).toBe(false);
  });
});

describe('withIdleLimit for chat completions', () => {
  const frontDoors = configuredFrontDoors({ openaiApi: { modelId: 'shop-agent' } });
  const request = (body: unknown): HttpRequest => ({ method: 'POST', path: '/v1/chat/completions', headers: { accept: 'application/json' }, body: JSON.stringify(body), deadlineAt: 900_000 });

  it('leaves a streamed chat completion the invocation’s whole time, its keep-alives hold the connection', () => {
    expect(withIdleLimit(frontDoors, request({ stream: true }), 0, 270_000).deadlineAt).toBe(900_000);
  });

  it('limits a JSON chat completion as any JSON turn', () => {
    expect(withIdleLimit(frontDoors, request({ stream: false }), 0, 270_000).deadlineAt).toBe(270_000);
    expect(withIdleLimit(frontDoors, { ...request({}), body: 'not json' }, 0, 270_000).deadlineAt).toBe(270_000);
  });
});
