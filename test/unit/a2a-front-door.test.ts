/**
 * The A2A front door over the agent (scripted model, in-memory store, fake tools), on the wire as
 * JSON-RPC: what test/e2e/a2a-client.test.ts cannot set up through `npm start` (a busy conversation,
 * a spent budget, declining a paused task, malformed requests), with the native statuses.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/core/logger.ts';
import { createStreamingHttpHandler } from '../../lib/front-doors/handlers.ts';
import { isEventStreamResponse, type StreamingHttpResponse } from '../../lib/http/event-stream.ts';
import { textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

const APPROVALS = 'a2a: true\nmcpServers:\n  fake: { command: unused, requireApproval: destructive }';
const V1 = { 'a2a-version': '1.0' };

function a2aDoor(script: ScriptedStep[] | null, yaml = 'a2a: true') {
  const fixture = agentFixture(script, { yaml });
  const handle = createStreamingHttpHandler({ agent: fixture.agent, logger: silentLogger, maxBodyBytes: fixture.config.http.maxBodyBytes, heartbeatMs: 1_000, a2a: fixture.config.a2a });
  const post = async (body: unknown, headers: Record<string, string> = {}, method = 'POST', owner?: string) =>
    read(await handle({ method, path: '/a2a', headers: { 'content-type': 'application/json', host: 'localhost:3000', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body), ...(owner ? { owner } : {}) }));
  return { ...fixture, post };
}

async function read(response: StreamingHttpResponse) {
  if (!isEventStreamResponse(response)) return { status: response.statusCode, headers: response.headers, body: JSON.parse(response.body) as Record<string, any> };
  let text = '';
  for await (const piece of response.body) text += String(piece);
  return { status: response.statusCode, headers: response.headers, body: { events: text.split('\n\n').filter((frame) => frame.startsWith('data: ')).map((frame) => JSON.parse(frame.slice(6))) } as Record<string, any> };
}

/** A v1.0 SendMessage (or another method) as JSON-RPC. */
const sendMessage = (text: string, ids: { contextId?: string; taskId?: string } = {}, method = 'SendMessage') => ({
  jsonrpc: '2.0',
  id: 7,
  method,
  params: { message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }], ...ids } },
});

describe('the A2A door’s JSON-RPC errors', () => {
  it('answers a busy conversation with 409 and Retry-After, the native code in the error’s details', async () => {
    // Prepare: a first turn that waits on the model until released.
    let release: (() => void) | undefined;
    const slow: ScriptedStep = () => new Promise((resolve) => (release = () => resolve(textReply('done'))));
    const { post } = a2aDoor([slow]);
    const first = post(sendMessage('slow', { contextId: 'busy-1' }), V1);
    while (!release) await new Promise((resolve) => setTimeout(resolve, 5));

    // Act
    const second = await post(sendMessage('again', { contextId: 'busy-1' }), V1);
    release();

    // Assess
    expect(second).toMatchObject({ status: 409, headers: { 'retry-after': expect.stringMatching(/^\d+$/) }, body: { jsonrpc: '2.0', id: 7, error: { code: -32603, data: [expect.objectContaining({ metadata: expect.objectContaining({ code: 'conversation_busy' }) })] } } });
    expect((await first).body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('answers a spent token budget with 429, saying which limit', async () => {
    const { post } = a2aDoor([textReply('first')], 'a2a: true\nlimits: { tokensPerConversation: 10 }');
    expect((await post(sendMessage('first', { contextId: 'spent' }), V1)).status).toBe(200);
    const response = await post(sendMessage('again', { contextId: 'spent' }), V1);
    expect(response).toMatchObject({ status: 429, body: { error: { message: expect.stringMatching(/limits\.tokensPerConversation/) } } });
  });

  it('answers a body that is not JSON with JSON-RPC’s parse error, and a method it does not know with method-not-found', async () => {
    const { post } = a2aDoor(null);
    expect(await post('{"jsonrpc": "2.0",')).toMatchObject({ status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32700, data: { code: 'malformed_json' } } } });
    expect(await post({ jsonrpc: '2.0', id: 1, method: 'tasks/explode', params: {} })).toMatchObject({ status: 200, body: { id: 1, error: { code: -32601 } } });
  });

  it('answers GET /a2a with 405 and Allow: POST, in the JSON-RPC error shape', async () => {
    const { post } = a2aDoor(null);
    expect(await post(undefined, {}, 'GET')).toMatchObject({ status: 405, headers: { allow: 'POST' }, body: { jsonrpc: '2.0', error: { code: -32600 } } });
  });

  it('refuses a message with no text before any turn runs', async () => {
    const { post, model } = a2aDoor([]);
    const response = await post({ jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { hello: 1 } }] } } }, V1);
    expect(response).toMatchObject({ status: 200, body: { error: { code: -32602, message: expect.stringMatching(/no text/) } } });
    expect(model!.requests).toHaveLength(0);
  });
});

describe('A2A tasks and owners', () => {
  it('keeps a task to the owner of its conversation: another caller finds no such task', async () => {
    const { post } = a2aDoor([textReply('for alice')]);
    const task = (await post(sendMessage('hello', { contextId: 'shared-id' }), V1, 'POST', 'alice')).body.result.task;

    const readByBob = await post({ jsonrpc: '2.0', id: 6, method: 'GetTask', params: { id: task.id } }, V1, 'POST', 'bob');
    const readByAlice = await post({ jsonrpc: '2.0', id: 6, method: 'GetTask', params: { id: task.id } }, V1, 'POST', 'alice');

    expect(readByBob.body.error).toMatchObject({ code: -32001 });
    expect(readByAlice.body.result).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_COMPLETED' } });
  });
});

describe('a paused A2A task', () => {
  const cancel = toolCallsReply([{ id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD7'] } }]);

  it('is declined by the text "decline": the call does not run, and the model answers in the same task', async () => {
    const { post, gateway } = a2aDoor([cancel, textReply('Not cancelled.')], APPROVALS);
    const paused = (await post(sendMessage('取消订单 ORD7'), V1)).body.result.task;
    expect(paused.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

    const resumed = (await post(sendMessage('decline', { taskId: paused.id, contextId: paused.contextId }), V1)).body.result.task;

    expect(resumed).toMatchObject({ id: paused.id, status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ parts: [{ text: 'Not cancelled.' }] }] });
    expect(gateway.calls.map((call) => call.name)).not.toContain('batchCancelOrdersByOrderNo');
  });

  it('takes the native decisions as a data part', async () => {
    const { post, gateway } = a2aDoor([cancel, textReply('Cancelled.')], APPROVALS);
    const paused = (await post(sendMessage('取消订单 ORD7'), V1)).body.result.task;

    const message = { messageId: 'decide-1', role: 'ROLE_USER', taskId: paused.id, parts: [{ data: { decisions: [{ toolCallId: 'c1', approved: true }] } }] };
    const resumed = (await post({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message } }, V1)).body.result.task;

    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
    expect(gateway.calls.map((call) => call.name)).toContain('batchCancelOrdersByOrderNo');
  });

  it('refuses other words, saying how to answer, and leaves the task waiting', async () => {
    const { post } = a2aDoor([cancel], APPROVALS);
    const paused = (await post(sendMessage('取消订单 ORD7'), V1)).body.result.task;

    const response = await post(sendMessage('maybe later', { taskId: paused.id }), V1);

    expect(response.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/reply "approve" or "decline"/) });
    const read = await post({ jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: paused.id } }, V1);
    expect(read.body.result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('streams its resumption: the same task working, then completed', async () => {
    const { post } = a2aDoor([cancel, textReply('Cancelled.')], APPROVALS);
    const paused = (await post(sendMessage('取消订单 ORD7'), V1)).body.result.task;

    const response = await post(sendMessage('approve', { taskId: paused.id }, 'SendStreamingMessage'), V1);

    expect(response.status).toBe(200);
    const results = response.body.events.map((event: { result: Record<string, any> }) => event.result);
    expect(results[0]).toMatchObject({ task: { id: paused.id, status: { state: 'TASK_STATE_WORKING' } } });
    expect(results.at(-1)).toMatchObject({ statusUpdate: { taskId: paused.id, status: { state: 'TASK_STATE_COMPLETED' } } });
  });

  it('answers a streamed resumption with decisions the agent refuses as the request’s error, and the task still waits', async () => {
    const { post } = a2aDoor([cancel], APPROVALS);
    const paused = (await post(sendMessage('取消订单 ORD7'), V1)).body.result.task;
    const message = { messageId: 'decide-2', role: 'ROLE_USER', taskId: paused.id, parts: [{ data: { decisions: [{ toolCallId: 'not-waiting', approved: true }] } }] };

    const response = await post({ jsonrpc: '2.0', id: 8, method: 'SendStreamingMessage', params: { message } }, V1);

    // The native API's answer to decisions that do not match the waiting calls: 409, as JSON, no stream.
    expect(response).toMatchObject({ status: 409, headers: { 'content-type': expect.stringContaining('application/json') }, body: { id: 8, error: { code: -32603 } } });
    const read = await post({ jsonrpc: '2.0', id: 9, method: 'GetTask', params: { id: paused.id } }, V1);
    expect(read.body.result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('cannot be canceled, and the error says to decline it', async () => {
    const { post } = a2aDoor([cancel], APPROVALS);
    const paused = (await post(sendMessage('取消订单 ORD7'), V1)).body.result.task;
    const response = await post({ jsonrpc: '2.0', id: 5, method: 'CancelTask', params: { id: paused.id } }, V1);
    expect(response.body.error).toMatchObject({ code: -32002, message: expect.stringMatching(/send "decline"/) });
  });
});
