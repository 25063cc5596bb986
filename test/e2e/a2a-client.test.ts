/**
 * The A2A front door through @a2a-js/sdk's own clients, callers nobody here wrote, against `npm
 * start` as its own process: the demo MCP server for tools (cancelling an order needs approval),
 * and the scripted OpenAI-compatible server as the agent's model. The v1.0 client (ClientFactory)
 * speaks SendMessage / SendStreamingMessage / GetTask / CancelTask; the v0.3 transport speaks
 * message/send, message/stream, tasks/get and tasks/cancel. The scripted replies are consumed in
 * order, so the tests run in order.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { AgentCard, SendMessageRequest, TaskState, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport, isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { TaskNotCancelableError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const DEMO_SERVER = fileURLToPath(new URL('../../lib/demo/server.ts', import.meta.url));
const ORDER = 'ORD20250514118567';

type WireMessage = { role: string; content?: unknown; tool_call_id?: string };

/** A user's message as the SDK's clients take it (proto JSON in, the SDK's full type out). */
function send(parts: Array<Record<string, unknown>>, ids: { contextId?: string; taskId?: string } = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts, ...ids } });
}

const text = (value: string) => ({ text: value });
const textsOf = (parts: Part[] | undefined) => (parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []));
const dataOf = (parts: Part[] | undefined) => (parts ?? []).flatMap((part) => (part.content?.$case === 'data' ? [part.content.value as Record<string, any>] : []));

function asTask(result: unknown): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

describe('the A2A front door, called by the @a2a-js/sdk clients', () => {
  let model: ScriptedOpenAIServer;
  let server: LocalServer;
  let folder: string;
  let client: Client;
  /** The conversation the first task started, continued by its context id. */
  let contextId = '';
  /** The task that paused for approval and was resumed. */
  let approvedTaskId = '';

  const modelMessages = (index: number) => (model.requests[index]!.body as { messages: WireMessage[] }).messages;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agent-a2a-client-'));
    const config = join(folder, 'agent.yml');
    writeFileSync(config, [
      'model: { maxRetries: 0 }',
      'a2a:',
      '  name: order-desk',
      '  description: Answers questions about the weather and cancels orders.',
      '  skills:',
      '    - { id: weather, name: Weather, description: The weather in a city, tags: [weather], examples: ["What is the weather in Shanghai?"] }',
      '    - { id: orders, name: Orders, description: "Cancels orders by their numbers, after approval" }',
      'mcpServers:',
      `  demo: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(DEMO_SERVER)}], requireApproval: destructive }`,
    ].join('\n'));
    model = await startScriptedOpenAIServer([
      // message/send: a tool round, then the answer
      toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]),
      textReply('上海今天天气不错。'),
      // the same conversation, continued by its context id
      textReply('明天多云。'),
      // message/stream: a tool round, then the answer
      toolCallsReply([{ id: 'call_weather_2', name: 'getWeather', arguments: { city: '北京' } }]),
      textReply('北京今天也不错。'),
      // an order to cancel: paused for approval, then resumed with "approve"
      toolCallsReply([{ id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: [ORDER] } }]),
      textReply(`订单 ${ORDER} 已取消。`),
      // a tool round, then a model that fails: the task fails
      toolCallsReply([{ id: 'call_weather_3', name: 'getWeather', arguments: { city: '广州' } }]),
      { status: 500, body: { error: { message: 'upstream exploded', type: 'server_error', param: null, code: null } } },
      // v0.3: message/send, then message/stream
      textReply('v0.3 answer'),
      textReply('v0.3 streamed answer'),
    ]);
    server = await startLocalServer({ AGENT_CONFIG: config, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'gpt-4-turbo', LOCAL_DATA_DIR: join(folder, 'data') });
    client = await new ClientFactory().createFromUrl(server.url);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('serves the agent card with agent.yml’s name, description and skills, the JSON-RPC URL, streaming, and no security scheme locally', async () => {
    // Act: the card the client fetched, read as the SDK reads A2A's JSON (empty fields left out on the wire)
    const card = AgentCard.fromJSON(await client.getAgentCard());

    // Assess
    expect(card).toMatchObject({
      name: 'order-desk',
      description: 'Answers questions about the weather and cancels orders.',
      capabilities: { streaming: true, pushNotifications: false },
    });
    // Nothing to present: npm start has no auth mode.
    expect(card.securitySchemes).toEqual({});
    expect(card.securityRequirements).toEqual([]);
    expect(card.supportedInterfaces).toEqual([
      { url: `${server.url}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${server.url}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ]);
    expect(card.skills.map(({ id, name, description, tags, examples }) => ({ id, name, description, tags, examples }))).toEqual([
      { id: 'weather', name: 'Weather', description: 'The weather in a city', tags: ['weather'], examples: ['What is the weather in Shanghai?'] },
      { id: 'orders', name: 'Orders', description: 'Cancels orders by their numbers, after approval', tags: [], examples: [] },
    ]);
  });

  it('answers message/send (SendMessage) with a completed task whose artifact is the reply, its context the conversation', async () => {
    // Act
    const task = asTask(await client.sendMessage(send([text('上海天气怎么样？')])));

    // Assess
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((artifact) => textsOf(artifact.parts))).toEqual([['上海今天天气不错。']]);
    expect(task.id).toBe(`${task.contextId}.1`);
    expect(task.metadata?.mcpAgent).toMatchObject({ conversationId: task.contextId, turn: 1, stopReason: 'completed', toolCalls: [{ name: 'getWeather', ok: true }] });
    // The tool ran: its result went back to the model.
    expect(modelMessages(1).some((message) => message.role === 'tool' && message.tool_call_id === 'call_weather')).toBe(true);
    contextId = task.contextId;
  });

  it('continues the conversation when a message names its context id', async () => {
    // Act
    const task = asTask(await client.sendMessage(send([text('明天呢？')], { contextId })));

    // Assess
    expect(task).toMatchObject({ id: `${contextId}.2`, contextId });
    expect(task.artifacts.map((artifact) => textsOf(artifact.parts))).toEqual([['明天多云。']]);
    // The model saw the first exchange.
    expect(modelMessages(2).map((message) => message.content)).toEqual(expect.arrayContaining(['上海天气怎么样？', '上海今天天气不错。', '明天呢？']));
  });

  it('leaves the conversation readable on the native door (GET /conversations/{contextId})', async () => {
    // Act
    const response = await fetch(`${server.url}/conversations/${contextId}`);

    // Assess
    expect(response.status).toBe(200);
    const conversation = (await response.json()) as { conversationId: string; turns: Array<{ turn: number; messages: WireMessage[] }> };
    expect(conversation.conversationId).toBe(contextId);
    expect(conversation.turns.map((turn) => turn.turn)).toEqual([1, 2]);
    expect(conversation.turns[1]!.messages.at(-1)).toMatchObject({ role: 'assistant', content: '明天多云。' });
  });

  it('streams message/stream (SendStreamingMessage): the task, a working update per tool call, the reply as an artifact, then completed', async () => {
    // Act
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send([text('北京天气怎么样？')]))) events.push(event);

    // Assess
    const kinds = events.map((event) => event.payload?.$case);
    expect(kinds).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    const [first, working, artifact, last] = events.map((event) => event.payload!.value) as [Task, any, any, any];
    expect(first.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(first.history.map((message) => textsOf(message.parts))).toEqual([['北京天气怎么样？']]);
    expect(working).toMatchObject({ taskId: first.id, status: { state: TaskState.TASK_STATE_WORKING } });
    expect(textsOf(working.status.message.parts)).toEqual(['Calling getWeather']);
    expect(artifact).toMatchObject({ taskId: first.id, lastChunk: true });
    expect(textsOf(artifact.artifact.parts)).toEqual(['北京今天也不错。']);
    expect(last).toMatchObject({ taskId: first.id, contextId: first.contextId, status: { state: TaskState.TASK_STATE_COMPLETED } });
  });

  it('pauses a task that needs approval as input-required, saying what waits, and resumes it with "approve"', async () => {
    // Act: the order cancel waits for a person
    const paused = asTask(await client.sendMessage(send([text(`取消订单 ${ORDER}`)])));

    // Assess
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const [waiting] = textsOf(paused.status?.message?.parts);
    expect(waiting).toContain('Waiting for approval: batchCancelOrdersByOrderNo');
    expect(waiting).toContain('"approve" or "decline"');
    expect(dataOf(paused.status?.message?.parts)).toEqual([{ pendingApprovals: [expect.objectContaining({ toolCallId: 'call_cancel', name: 'batchCancelOrdersByOrderNo' })], pendingElicitations: [] }]);
    // Nothing ran yet: the model was not asked again.
    const requestsWhilePaused = model.requests.length;

    // Act: approved in the same task
    const resumed = asTask(await client.sendMessage(send([text('approve')], { taskId: paused.id, contextId: paused.contextId })));

    // Assess: the same task (the same turn), completed with the answer, the cancel having run
    expect(resumed).toMatchObject({ id: paused.id, contextId: paused.contextId, status: { state: TaskState.TASK_STATE_COMPLETED } });
    expect(resumed.artifacts.map((artifact) => textsOf(artifact.parts))).toEqual([[`订单 ${ORDER} 已取消。`]]);
    expect(model.requests.length).toBe(requestsWhilePaused + 1);
    const cancelResult = modelMessages(requestsWhilePaused).find((message) => message.role === 'tool' && message.tool_call_id === 'call_cancel');
    expect(String(cancelResult?.content)).toContain(ORDER);
    expect(resumed.metadata?.mcpAgent).toMatchObject({ toolCalls: [expect.objectContaining({ name: 'batchCancelOrdersByOrderNo', ok: true })] });
    approvedTaskId = resumed.id;
  });

  it('reads a stored task with tasks/get (GetTask)', async () => {
    // Act
    const task = await client.getTask({ tenant: '', id: approvedTaskId });

    // Assess
    expect(task).toMatchObject({ id: approvedTaskId, status: { state: TaskState.TASK_STATE_COMPLETED } });
    expect(task.history.map((message) => textsOf(message.parts))).toEqual([[`取消订单 ${ORDER}`]]);
    expect(task.artifacts.map((artifact) => textsOf(artifact.parts))).toEqual([[`订单 ${ORDER} 已取消。`]]);
  });

  it('refuses tasks/cancel (CancelTask) of a completed task with A2A’s TaskNotCancelable error, and an unknown task with TaskNotFound', async () => {
    await expect(client.cancelTask({ tenant: '', id: approvedTaskId, metadata: undefined })).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(client.getTask({ tenant: '', id: `${contextId}.99` })).rejects.toThrow(/no task/);
  });

  it('refuses a message to a finished task', async () => {
    await expect(client.sendMessage(send([text('approve')], { taskId: approvedTaskId }))).rejects.toThrow(/finished and takes no more messages/);
  });

  it('fails the task when the model fails after a tool ran, with the reason as its status message', async () => {
    // Act
    const task = asTask(await client.sendMessage(send([text('广州天气怎么样？')])));

    // Assess
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(task.artifacts).toEqual([]);
    expect(task.metadata?.mcpAgent).toMatchObject({ stopReason: 'error', toolCalls: [{ name: 'getWeather', ok: true }] });
    expect(textsOf(task.status?.message?.parts).join('')).not.toBe('');
  });

  it('speaks A2A v0.3 to a client that asks without a version: its card, message/send, tasks/get, tasks/cancel and message/stream', async () => {
    // Act: the card as a v0.3 client fetches it (no A2A-Version header)
    const raw = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;

    // Assess
    expect(raw).toMatchObject({ protocolVersion: '0.3.0', url: `${server.url}/a2a`, preferredTransport: 'JSONRPC', capabilities: { streaming: true } });
    // A v0.3 reader sees a v0.3 card; the v1.0 interfaces ride along, as on the SDK's own server.
    const { supportedInterfaces, ...v03 } = raw;
    expect(isLegacyAgentCard(v03)).toBe(true);
    expect(parseLegacyAgentCard(v03)).toMatchObject({ name: 'order-desk', skills: [expect.objectContaining({ id: 'weather' }), expect.objectContaining({ id: 'orders' })] });
    expect(supportedInterfaces).toHaveLength(2);

    // Act: the v0.3 wire methods
    const legacy = new LegacyJsonRpcTransport({ endpoint: raw.url as string });
    const sent = asTask(await legacy.sendMessage(send([text('v0.3 question')])));
    const read = await legacy.getTask({ tenant: '', id: sent.id });
    const cancel = await legacy.cancelTask({ tenant: '', id: sent.id, metadata: undefined }).catch((error: unknown) => error);
    const streamed: StreamResponse[] = [];
    for await (const event of legacy.sendMessageStream(send([text('v0.3 stream')], { contextId: sent.contextId }))) streamed.push(event);

    // Assess
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(read.artifacts.map((artifact) => textsOf(artifact.parts))).toEqual([['v0.3 answer']]);
    expect(cancel).toBeInstanceOf(TaskNotCancelableError);
    expect(streamed.at(0)?.payload?.$case).toBe('task');
    expect(streamed.at(-1)?.payload).toMatchObject({ $case: 'statusUpdate', value: { taskId: `${sent.contextId}.2`, status: { state: TaskState.TASK_STATE_COMPLETED } } });
  });
});
