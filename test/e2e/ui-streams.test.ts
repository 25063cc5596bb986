/**
 * The UI toolkit doors through `npm start`, each stream read by its toolkit's own client in Node:
 * the AI SDK's DefaultChatTransport (what useChat sends and parses, every chunk checked against the
 * SDK's schema) with readUIMessageStream building the message, and AG-UI's HttpAgent (which checks
 * the order of events) with every event parsed by @ag-ui/core's schemas. The model is the scripted
 * OpenAI-compatible server; the tools are the demo MCP server's.
 */
import type { BaseEvent } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { HttpAgent } from '@ag-ui/client';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { weatherFor } from '../../lib/demo/tools.ts';
import { demoServerYml, getJson, serversPerTest } from '../support/configured-local-server.ts';
import { textReply, toolCallsReply } from '../support/scripted-openai-server.ts';

const TODOS = [{ content: '查上海天气', status: 'in_progress' }];
const DONE = [{ content: '查上海天气', status: 'completed' }];
const ANSWER = `上海${weatherFor('上海').condition}。`;
const CANCEL = { id: 'call_cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD20250514118567'] } };
const YML = `uiStreams: true\ntodoList: true\nmodel: { maxRetries: 0 }\n${demoServerYml(', requireApproval: destructive')}`;

const weatherScript = () => [
  toolCallsReply([{ id: 'todo_1', name: 'write_todos', arguments: { todos: TODOS } }, { id: 'weather_sh', name: 'getWeather', arguments: { city: '上海' } }]),
  toolCallsReply([{ id: 'todo_2', name: 'write_todos', arguments: { todos: DONE } }]),
  textReply(ANSWER),
];

/** useChat's request and parsing: the transport POSTs {id, messages, trigger}, and readUIMessageStream builds the message. */
async function chat(url: string, chatId: string, messages: UIMessage[]): Promise<{ message: UIMessage; headers: Headers }> {
  let headers = new Headers();
  const transport = new DefaultChatTransport({
    api: `${url}/ui/ai-sdk/chat`,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      headers = response.headers;
      return response;
    },
  });
  const stream = await transport.sendMessages({ chatId, messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
  const last = messages.at(-1)!;
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, terminateOnError: true, ...(last.role === 'assistant' ? { message: last } : {}) })) message = snapshot;
  return { message: message!, headers };
}

const userMessage = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

describe('the AI SDK UI message stream (useChat) through npm start', () => {
  const servers = serversPerTest();

  it('streams tool calls, their results, the todo list and the reply as UI message parts, and the conversation is readable on the native door', async () => {
    // Prepare
    const model = await servers.model(weatherScript());
    const local = await servers.local(YML, model);

    // Act
    const { message, headers } = await chat(local.server.url, 'chat-weather', [userMessage('u1', '上海天气怎么样？')]);

    // Assess: the protocol's header and the message useChat would show.
    expect(headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const tools = message.parts.filter((part) => part.type === 'dynamic-tool');
    expect(tools.map((part) => [part.toolName, part.toolCallId, part.state])).toEqual([
      ['write_todos', 'todo_1', 'output-available'],
      ['getWeather', 'weather_sh', 'output-available'],
      ['write_todos', 'todo_2', 'output-available'],
    ]);
    expect(tools[1]).toMatchObject({ input: { city: '上海' } });
    expect(String((tools[1] as { output: unknown }).output)).toContain(weatherFor('上海').condition);
    // The todo list is one data part, replaced in place as it changes.
    expect(message.parts.filter((part) => part.type === 'data-todos')).toEqual([{ type: 'data-todos', id: 'todos', data: { todos: DONE } }]);
    expect(message.parts.filter((part) => part.type === 'text').map((part) => part.text)).toEqual([ANSWER]);
    expect(message.parts.filter((part) => part.type === 'step-start')).toHaveLength(3);
    expect(message.metadata).toMatchObject({ conversationId: 'chat-weather', turn: 1, stopReason: 'completed', reply: ANSWER, todos: DONE });

    // Assess: the same conversation on the native door.
    const view = await getJson(`${local.server.url}/conversations/chat-weather`);
    expect(view.status).toBe(200);
    expect(view.body.todos).toEqual(DONE);
    expect(view.body.turns).toHaveLength(1);
    expect(view.body.turns[0].messages.at(-1)).toMatchObject({ role: 'assistant', content: ANSWER });

    // Act: the same request again (a retry after a dropped connection).
    const retried = await chat(local.server.url, 'chat-weather', [userMessage('u1', '上海天气怎么样？')]);

    // Assess: the stored turn, without a second one or another model call.
    expect(retried.message.parts.filter((part) => part.type === 'text').map((part) => part.text)).toEqual([ANSWER]);
    expect(retried.message.metadata).toMatchObject({ conversationId: 'chat-weather', turn: 1, stopReason: 'completed' });
    expect(model.requests).toHaveLength(3);
  });

  it('pauses at a call that needs approval with a tool-approval-request, and goes on when useChat sends the approval response', async () => {
    // Prepare
    const model = await servers.model([toolCallsReply([CANCEL]), textReply('订单已取消。')]);
    const local = await servers.local(YML, model);
    const question = userMessage('u1', '取消订单 ORD20250514118567');

    // Act: the turn pauses.
    const paused = await chat(local.server.url, 'chat-cancel', [question]);

    // Assess
    const waiting = paused.message.parts.find((part) => part.type === 'dynamic-tool')!;
    expect(waiting).toMatchObject({ toolName: CANCEL.name, toolCallId: CANCEL.id, state: 'approval-requested', approval: { id: CANCEL.id }, input: CANCEL.arguments });
    const approval = paused.message.parts.find((part) => part.type === 'data-approval') as { data: any } | undefined;
    expect(approval?.data.pendingApprovals).toEqual([expect.objectContaining({ toolCallId: CANCEL.id, name: CANCEL.name, server: 'demo' })]);
    expect(approval?.data.howToDecide).toMatch(/addToolApprovalResponse/);
    expect(paused.message.metadata).toMatchObject({ stopReason: 'approval_required' });
    expect(model.requests).toHaveLength(1);

    // Act: what useChat sends after addToolApprovalResponse({ id, approved: true }).
    const answered: UIMessage = { ...paused.message, parts: paused.message.parts.map((part) => (part === waiting ? { ...waiting, state: 'approval-responded', approval: { id: CANCEL.id, approved: true } } as typeof part : part)) };
    const resumed = await chat(local.server.url, 'chat-cancel', [question, answered]);

    // Assess: the call ran, its output is on the same part, and the reply follows.
    const ran = resumed.message.parts.find((part) => part.type === 'dynamic-tool')!;
    expect(ran).toMatchObject({ toolCallId: CANCEL.id, state: 'output-available' });
    expect(resumed.message.parts.filter((part) => part.type === 'text').map((part) => part.text).join('')).toContain('订单已取消。');
    expect(resumed.message.metadata).toMatchObject({ conversationId: 'chat-cancel', turn: 1, stopReason: 'completed' });
    const view = await getJson(`${local.server.url}/conversations/chat-cancel`);
    expect(view.body.turns[0].messages.find((stored: any) => stored.role === 'tool')).toMatchObject({ toolCallId: CANCEL.id });
  });

  it('shows a call declined with addToolApprovalResponse as denied, and the model is told', async () => {
    // Prepare
    const model = await servers.model([toolCallsReply([CANCEL]), textReply('好的，不取消。')]);
    const local = await servers.local(YML, model);
    const question = userMessage('u1', '取消订单 ORD20250514118567');
    const paused = await chat(local.server.url, 'chat-decline', [question]);
    const waiting = paused.message.parts.find((part) => part.type === 'dynamic-tool')!;

    // Act
    const answered: UIMessage = { ...paused.message, parts: paused.message.parts.map((part) => (part === waiting ? { ...waiting, state: 'approval-responded', approval: { id: CANCEL.id, approved: false, reason: '先不取消' } } as typeof part : part)) };
    const resumed = await chat(local.server.url, 'chat-decline', [question, answered]);

    // Assess
    expect(resumed.message.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({ toolCallId: CANCEL.id, state: 'output-denied' });
    expect(resumed.message.metadata).toMatchObject({ stopReason: 'completed', reply: '好的，不取消。' });
    const toolAnswer = (model.requests[1]!.body as { messages: Array<{ role: string; content: string }> }).messages.find((message) => message.role === 'tool');
    expect(toolAnswer?.content).toContain('先不取消');
  });
});

describe('the UI doors refuse bad input before a turn starts', () => {
  const servers = serversPerTest();

  it('answers a useChat body without the chat id, and a RunAgentInput without a thread, with the native 400, and runs no model call', async () => {
    // Prepare
    const model = await servers.model([]);
    const local = await servers.local(YML, model);

    // Act
    const noChatId = await fetch(`${local.server.url}/ui/ai-sdk/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [userMessage('u1', 'hi')] }) });
    const noThread = await fetch(`${local.server.url}/ui/ag-ui`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ runId: 'r1', messages: [] }) });
    const wrongMethod = await fetch(`${local.server.url}/ui/ag-ui`);

    // Assess
    expect([noChatId.status, await noChatId.json()]).toEqual([400, { error: { code: 'missing_conversation_id', message: expect.stringContaining('"id"') } }]);
    expect([noThread.status, await noThread.json()]).toEqual([400, { error: { code: 'missing_conversation_id', message: expect.stringContaining('"threadId"') } }]);
    expect([wrongMethod.status, wrongMethod.headers.get('allow')]).toEqual([405, 'POST']);
    expect(model.requests).toHaveLength(0);
  });

  it('leaves the doors out when agent.yml does not turn uiStreams on: the native 404', async () => {
    const model = await servers.model([]);
    const local = await servers.local(`model: { maxRetries: 0 }\n${demoServerYml()}`, model);
    const response = await fetch(`${local.server.url}/ui/ai-sdk/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'c1', messages: [userMessage('u1', 'hi')] }) });
    expect(response.status).toBe(404);
  });
});

/** Runs the agent the way CopilotKit's runtime does, keeping every event, each parsed by the protocol's schema. */
async function runAgUi(agent: HttpAgent, parameters: Parameters<HttpAgent['runAgent']>[0]): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  await agent.runAgent(parameters, { onEvent: ({ event }) => void events.push(EventSchemas.parse(event) as BaseEvent) });
  return events;
}

describe('AG-UI events through npm start', () => {
  const servers = serversPerTest();

  it('runs a turn as AG-UI events: tool calls and results, the todo list as state, the reply as a text message', async () => {
    // Prepare
    const model = await servers.model(weatherScript());
    const local = await servers.local(YML, model);
    const agent = new HttpAgent({ url: `${local.server.url}/ui/ag-ui`, threadId: 'thread-weather' });
    agent.addMessage({ id: 'u1', role: 'user', content: '上海天气怎么样？' });

    // Act
    const events = await runAgUi(agent, { runId: 'run-1' });

    // Assess: the events, in the protocol's order.
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('RUN_STARTED');
    expect(types.at(-1)).toBe('RUN_FINISHED');
    expect(types.filter((type) => type === 'TOOL_CALL_START')).toHaveLength(3);
    expect(types.filter((type) => type === 'TOOL_CALL_RESULT')).toHaveLength(3);
    expect(events.filter((event) => event.type === 'STATE_SNAPSHOT').map((event: any) => event.snapshot)).toEqual([{ todos: TODOS }, { todos: DONE }]);
    expect((events.at(-1) as any).outcome).toEqual({ type: 'success' });

    // Assess: what the client built from them.
    expect(agent.state).toEqual({ todos: DONE });
    const assistant = agent.messages.filter((message) => message.role === 'assistant');
    expect(assistant.flatMap((message: any) => message.toolCalls ?? []).map((call: any) => [call.id, call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ['todo_1', 'write_todos', { todos: TODOS }],
      ['weather_sh', 'getWeather', { city: '上海' }],
      ['todo_2', 'write_todos', { todos: DONE }],
    ]);
    expect(agent.messages.filter((message) => message.role === 'tool').map((message: any) => message.toolCallId)).toEqual(['todo_1', 'weather_sh', 'todo_2']);
    expect(assistant.map((message: any) => message.content).filter(Boolean)).toEqual([ANSWER]);

    // Assess: the thread is the conversation on the native door.
    const view = await getJson(`${local.server.url}/conversations/thread-weather`);
    expect(view.body).toMatchObject({ conversationId: 'thread-weather', todos: DONE });
    expect(view.body.turns[0].messages.at(-1)).toMatchObject({ role: 'assistant', content: ANSWER });
  });

  it('ends a run that waits for approval with an interrupt, and a run that resumes it runs the call', async () => {
    // Prepare
    const model = await servers.model([toolCallsReply([CANCEL]), textReply('订单已取消。')]);
    const local = await servers.local(YML, model);
    const agent = new HttpAgent({ url: `${local.server.url}/ui/ag-ui`, threadId: 'thread-cancel' });
    agent.addMessage({ id: 'u1', role: 'user', content: '取消订单 ORD20250514118567' });

    // Act
    const paused = await runAgUi(agent, { runId: 'run-1' });

    // Assess
    const finished = paused.at(-1) as any;
    expect(finished.type).toBe('RUN_FINISHED');
    expect(finished.outcome).toMatchObject({ type: 'interrupt', interrupts: [{ id: CANCEL.id, reason: 'tool_approval', toolCallId: CANCEL.id }] });
    expect(paused.find((event: any) => event.type === 'CUSTOM' && event.name === 'approval-required')).toBeDefined();
    expect(agent.pendingInterrupts.map((interrupt) => interrupt.id)).toEqual([CANCEL.id]);

    // Act: resume with the decision.
    const resumed = await runAgUi(agent, { runId: 'run-2', resume: [{ interruptId: CANCEL.id, status: 'resolved', payload: { approved: true } }] });

    // Assess
    expect(resumed.find((event: any) => event.type === 'TOOL_CALL_RESULT')).toMatchObject({ toolCallId: CANCEL.id });
    expect((resumed.at(-1) as any)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: { stopReason: 'completed' } });
    expect(agent.messages.filter((message) => message.role === 'assistant').map((message: any) => message.content).join('')).toContain('订单已取消。');
  });
});
