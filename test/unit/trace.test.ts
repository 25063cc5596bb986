import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../lib/create-agent.ts';
import type { AgentExtension } from '../../lib/agent/extension-api/extension.ts';
import { fitTrace, sizeOf } from '../../lib/extensions/trace/fit.ts';
import { emptyTrace, TraceBook, type StoredTrace } from '../../lib/extensions/trace/book.ts';
import { traceExtension } from '../../lib/extensions/trace/extension.ts';
import type { RunningCall, TurnContext } from '../../lib/agent/extension-api/extension.ts';
import type { ToolOutput } from '../../lib/core/ports/tools.ts';
import type { Message } from '../../lib/core/messages.ts';
import type { TraceMessage } from '../../lib/core/turn-trace.ts';
import { expandTrace } from '../../lib/extensions/trace/read.ts';
import { traceMessages } from '../../lib/extensions/trace/shape.ts';
import type { ModelRequest } from '../../lib/core/ports/model.ts';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { createScriptedModel, textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture, testGateway, weatherTool } from '../support/agent-fixture.ts';

const APPROVALS = 'mcpServers:\n  fake: { command: unused, requireApproval: destructive }';
const weather = (id: string, city = '上海') => ({ id, name: 'getWeather', arguments: { city } });
/** What the model received, in the trace's shape: what a trace must show. */
const sent = (request: ModelRequest) => traceMessages(request.messages, 'full');
/** Where in `value` an object or array is frozen (JSON paths). */
const frozenParts = (value: unknown, path = '$'): string[] => {
  if (typeof value !== 'object' || value === null) return [];
  const own = Object.isFrozen(value) ? [path] : [];
  return own.concat(Object.entries(value).flatMap(([key, inner]) => frozenParts(inner, `${path}.${key}`)));
};
/** The trace as the conversation's newest turn stored it. */
const storedTrace = async (store: ReturnType<typeof createMemoryConversationStore>, conversationId: string, turn: number) => {
  const { records } = await store.readPage({ conversationId }, { limit: 1, after: turn - 1 });
  return records[0]!.state().trace as Record<string, unknown>;
};

describe('the turn trace', () => {
  it('keeps each round\'s exact request (messages with their tool_call_ids, tools) and reply, with timings and usage', async () => {
    const { agent } = agentFixture([
      toolCallsReply([weather('call_1')], { promptTokens: 100, completionTokens: 7 }),
      textReply('上海晴。', { promptTokens: 130, completionTokens: 9 }),
    ]);
    await agent.ask({ conversationId: 'traced', message: '上海天气？' });

    const trace = await agent.getTurnTrace({ conversationId: 'traced' }, 1);

    expect(trace).toMatchObject({ conversationId: 'traced', turn: 1 });
    expect(trace.rounds.map((round) => round.round)).toEqual([1, 2]);
    const [first, second] = trace.rounds;
    expect(first!.request!.messages).toEqual([
      { role: 'system', content: expect.stringContaining('你是一个智能助手') },
      { role: 'user', content: '上海天气？' },
    ]);
    expect(first!.request!.tools.map((tool) => tool.function.name)).toEqual(['getWeather', 'batchCancelOrdersByOrderNo']);
    expect(first!.request!.tools[0]!.function.parameters).toMatchObject({ type: 'object', properties: { city: expect.any(Object) } });
    expect(first!.response).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'getWeather', arguments: '{"city":"上海"}' } }] });
    expect(first!.usage).toEqual({ promptTokens: 100, completionTokens: 7 });
    expect(second!.request!.messages.slice(2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'getWeather', arguments: '{"city":"上海"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', name: 'getWeather', content: '{"city":"上海","condition":"晴"}' },
    ]);
    expect(second!.response).toEqual({ role: 'assistant', content: '上海晴。' });
    for (const round of trace.rounds) {
      expect(Date.parse(round.startedAt)).not.toBeNaN();
      expect(round.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(trace.toolCalls).toEqual([{ id: 'call_1', name: 'getWeather', ok: true, durationMs: expect.any(Number) }]);
  });

  it('keeps the system prompt once however many rounds repeat it, and the turn\'s own messages not at all (its item stores them)', async () => {
    const { agent, model, store } = agentFixture([
      toolCallsReply([weather('a')]), toolCallsReply([weather('b')]), toolCallsReply([weather('c')]), textReply('done'),
    ], { yaml: 'maxRounds: 8' });
    await agent.ask({ conversationId: 'rounds', message: 'weather' });

    const stored = await storedTrace(store, 'rounds', 1);
    // The system prompt: the question, the three calls and their three results are the turn's own.
    expect((stored.messages as unknown[]).length).toBe(1);
    expect((stored.tools as unknown[]).length).toBe(2);
    expect((stored.rounds as StoredTrace['rounds']).map((round) => round.request!.own)).toEqual([1, 3, 5, 7].map((messages) => ({ at: 1, messages })));
    const trace = await agent.getTurnTrace({ conversationId: 'rounds' }, 1);
    expect(trace.rounds.map((round) => round.request!.messages.length)).toEqual([2, 4, 6, 8]);
    expect(trace.rounds.map((round) => round.request!.messages)).toEqual(model!.requests.map(sent));
  });

  it('keeps copies of the turn\'s messages when they are rearranged after a round referred to them, or while an answer may be sent back', async () => {
    const extension = traceExtension({ enabled: true, maxBytes: 65_536, contents: 'full' });
    let own: Message[] = [{ role: 'user', content: 'first' }];
    const turn = { turn: 1, state: {}, scratch: {}, history: [], get messages() { return own; } } as unknown as TurnContext;
    const answer = (content: string) => async () => ({ content, toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 } });
    const requests: ModelRequest[] = [];
    const call = async (request: ModelRequest, reply: () => Promise<never>) => {
      requests.push(request);
      await extension.aroundModelCall!(request, reply, turn);
    };
    await extension.turnStart!(turn);
    await call({ messages: [{ role: 'system', content: 'S' }, ...own], tools: [], timeoutMs: 1_000 }, answer('one') as never);
    expect((turn.state as StoredTrace).rounds[0]!.request!.own).toEqual({ at: 1, messages: 1 });

    // A strategy moves the turn's messages out of its draft: what round 1 referred to is gone.
    own = [{ role: 'user', content: 'second' }];
    await call({ messages: [{ role: 'system', content: 'S' }, ...own], tools: [], timeoutMs: 1_000 }, answer('two') as never);
    // A request that may send its answer back for not validating.
    await call({ messages: [{ role: 'system', content: 'S' }, ...own], tools: [], timeoutMs: 1_000, responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' } } }, answer('{}') as never);
    await extension.turnEnd!({ toolCalls: [], stopReason: 'completed' } as never, turn);

    const trace = turn.state as StoredTrace;
    expect(trace.rounds.map((round) => round.request!.own)).toEqual([undefined, undefined, undefined]);
    expect(expandTrace(trace).rounds.map((round) => round.request!.messages)).toEqual(requests.map(sent));
  });

  it('shows the rounds of an answer that was sent back for not validating, which the stored turn no longer holds', async () => {
    const { agent, model, store } = agentFixture([toolCallsReply([weather('w')]), textReply('not JSON'), textReply('{"city":"上海"}')]);
    const format = { type: 'json_schema' as const, name: 'weather', schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

    const turn = await agent.ask({ conversationId: 'sent-back', message: '上海天气？', responseFormat: format });

    expect(turn.output).toEqual({ city: '上海' });
    const [record] = await store.readAll({ conversationId: 'sent-back' });
    expect(JSON.stringify(record!.messages())).not.toContain('not JSON');
    const trace = await agent.getTurnTrace({ conversationId: 'sent-back' }, 1);
    expect(trace.rounds.map((round) => round.request!.messages)).toEqual(model!.requests.map(sent));
    expect(JSON.stringify(trace.rounds[2]!.request!.messages)).toContain('not JSON');
  });

  it('records a call that was under way when the turn\'s messages were rearranged with copies too (calls side by side)', async () => {
    const extension = traceExtension({ enabled: true, maxBytes: 65_536, contents: 'full' });
    let own: Message[] = [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'noted', toolCalls: [] }];
    const turn = { turn: 1, state: {}, scratch: {}, history: [], get messages() { return own; } } as unknown as TurnContext;
    const answer = { content: 'done', toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 } };
    await extension.turnStart!(turn);
    const slow: ModelRequest = { messages: [{ role: 'system', content: 'S' }, ...own], tools: [], timeoutMs: 1_000 };
    let finish!: () => void;
    const slowCall = extension.aroundModelCall!(slow, () => new Promise((resolve) => (finish = () => resolve(answer))), turn);

    // Meanwhile the strategy moves the turn's messages, and another call starts.
    own = [{ role: 'user', content: 'second' }];
    const quick: ModelRequest = { messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'task' }, ...own], tools: [], timeoutMs: 1_000 };
    await extension.aroundModelCall!(quick, async () => answer, turn);
    finish();
    await slowCall;
    await extension.turnEnd!({ toolCalls: [], stopReason: 'completed' } as never, turn);

    const trace = turn.state as StoredTrace;
    expect(trace.rounds.map((round) => [round.round, round.request!.own])).toEqual([[1, undefined], [2, undefined]]);
    expect(expandTrace(trace).rounds.map((round) => round.request!.messages)).toEqual([sent(slow), sent(quick)]);
  });

  it('keeps copies in a paused turn\'s trace: the request that resumes it may rearrange the turn\'s messages', async () => {
    const extension = traceExtension({ enabled: true, maxBytes: 65_536, contents: 'full' });
    const own: Message[] = [{ role: 'user', content: 'cancel ORD1' }];
    const turn = { turn: 1, state: {}, scratch: {}, history: [], messages: own } as unknown as TurnContext;
    const request: ModelRequest = { messages: [{ role: 'system', content: 'S' }, ...own], tools: [], timeoutMs: 1_000 };
    await extension.turnStart!(turn);
    await extension.aroundModelCall!(request, async () => ({ content: null, toolCalls: [{ id: 'c1', name: 'cancel', arguments: '{}' }], usage: { promptTokens: 1, completionTokens: 1 } }), turn);
    expect((turn.state as StoredTrace).rounds[0]!.request!.own).toEqual({ at: 1, messages: 1 });

    await extension.turnEnd!({ toolCalls: [], stopReason: 'approval_required' } as never, turn);

    const paused = turn.state as StoredTrace;
    expect(paused.rounds[0]!.request!.own).toBeUndefined();
    expect(expandTrace(paused).rounds[0]!.request!.messages).toEqual(sent(request));
  });

  it('keeps the earlier turns\' messages by reference (they are in their own items), and puts them back exactly as sent', async () => {
    const { agent, model, store } = agentFixture([
      toolCallsReply([weather('w1', '上海')]), textReply('上海晴。'),
      toolCallsReply([weather('w2', '北京')]), textReply('北京多云。'),
      textReply('都看过了。'),
    ]);
    await agent.ask({ conversationId: 'refs', message: '上海天气？' });
    await agent.ask({ conversationId: 'refs', message: '北京呢？' });
    await agent.ask({ conversationId: 'refs', message: '还有吗？' });

    const stored = await storedTrace(store, 'refs', 3);
    expect(JSON.stringify(stored.messages)).not.toContain('上海天气？');
    expect(stored.history).toEqual({ messages: 8, digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    for (const [turn, requests] of [[1, model!.requests.slice(0, 2)], [2, model!.requests.slice(2, 4)], [3, model!.requests.slice(4)]] as const) {
      const trace = await agent.getTurnTrace({ conversationId: 'refs' }, turn);
      expect(trace.rounds.map((round) => round.request!.messages)).toEqual(requests.map(sent));
    }
  });

  it('finds a history whose oldest turn was sent condensed to its question and answer', async () => {
    const long = '多云'.repeat(2_000);
    const { agent, model } = agentFixture([
      toolCallsReply([weather('big')]), textReply('上海多云。'),
      textReply('好的。'),
      textReply('再见。'),
    ], { yaml: 'history: { maxTokens: 1000 }', gateway: testGateway([weatherTool(() => ({ ok: true, text: long }))]) });
    await agent.ask({ conversationId: 'condensed', message: '上海天气？' });
    await agent.ask({ conversationId: 'condensed', message: '谢谢' });
    await agent.ask({ conversationId: 'condensed', message: '拜拜' });
    // The first turn went to the third as its question and answer only.
    expect(sent(model!.requests[3]!).map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);

    const trace = await agent.getTurnTrace({ conversationId: 'condensed' }, 3);

    expect(trace.rounds[0]!.request!.messages).toEqual(sent(model!.requests[3]!));
  });

  it('says how many earlier messages it can no longer show when an earlier turn is gone', async () => {
    const { agent, store } = agentFixture([textReply('one'), textReply('two')]);
    await agent.ask({ conversationId: 'gone', message: 'first' });
    await agent.ask({ conversationId: 'gone', message: 'second' });
    const { records } = await store.readPage({ conversationId: 'gone' }, { limit: 1 });
    await store.remove({ conversationId: 'gone' }, 1, { claimId: records[0]!.claimId, status: 'complete' });

    const request = (await agent.getTurnTrace({ conversationId: 'gone' }, 2)).rounds[0]!.request!;

    expect(request.historyUnavailable).toBe(2);
    expect(request.messages.map((message) => message.content)).toEqual([expect.stringContaining('智能助手'), 'second']);
  });

  it('records the request as it is finally sent, after every extension changed it, the embedding code\'s included', async () => {
    const rewriter: AgentExtension = {
      name: 'rewriter',
      beforeModelCall: (plan) => ({ ...plan, systemPrompt: `${plan.systemPrompt}\n(rewritten)` }),
      aroundModelCall: (request, next) => next({ ...request, messages: [...request.messages, { role: 'user', content: 'P.S. be brief' }] }),
    };
    const model = createScriptedModel([textReply('ok')]);
    const config = parseConfig('todoList: true', { source: 'test.yml', environment: {} });
    const agent = createAgent(config, { ownerCounters: createMemoryOwnerCounters(), model, gateway: testGateway(), store: createMemoryConversationStore(), logger: silentLogger, extensions: [rewriter] });
    await agent.ask({ conversationId: 'rewritten', message: 'hi' });

    const request = (await agent.getTurnTrace({ conversationId: 'rewritten' }, 1)).rounds[0]!.request!;

    expect(request.messages).toEqual(model.requests[0]!.messages.map((message) => ({ role: message.role, content: message.content })));
    expect(request.messages[0]!.content).toMatch(/## Todo list[\s\S]*\(rewritten\)$/);
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'P.S. be brief' });
    expect(request.tools.map((tool) => tool.function.name)).toContain('write_todos');
  });

  it('records each round\'s own request when an extension changes the system prompt or a repeated message from round to round', async () => {
    let round = 0;
    const changing: AgentExtension = {
      name: 'changing',
      beforeModelCall: (plan) => ({ ...plan, systemPrompt: `${plan.systemPrompt}\n(round ${++round})` }),
      // The question at the same place, as a new object with another text every round.
      aroundModelCall: (request, next) => next({ ...request, messages: request.messages.map((message) => (message.role === 'user' ? { role: 'user', content: `${message.content} (round ${round})` } : message)) }),
    };
    const model = createScriptedModel([toolCallsReply([weather('a')]), toolCallsReply([weather('b')]), textReply('done')]);
    const config = parseConfig('maxRounds: 8', { source: 'test.yml', environment: {} });
    const agent = createAgent(config, { ownerCounters: createMemoryOwnerCounters(), model, gateway: testGateway(), store: createMemoryConversationStore(), logger: silentLogger, extensions: [changing] });
    await agent.ask({ conversationId: 'changing', message: 'weather' });

    const trace = await agent.getTurnTrace({ conversationId: 'changing' }, 1);

    expect(trace.rounds).toHaveLength(3);
    trace.rounds.forEach((traced, index) => expect(traced.request!.messages).toEqual(sent(model.requests[index]!)));
    expect(trace.rounds[2]!.request!.messages[1]).toEqual({ role: 'user', content: 'weather (round 3)' });
  });

  it('keeps each turn\'s own trace, and goes on with a paused turn\'s when it is resumed', async () => {
    const { agent } = agentFixture([
      textReply('first'),
      toolCallsReply([{ id: 'cancel_1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } }]),
      textReply('cancelled'),
    ], { yaml: APPROVALS });
    await agent.ask({ conversationId: 'turns', message: 'hello' });
    const paused = await agent.ask({ conversationId: 'turns', message: 'cancel ORD1' });
    expect(paused.stopReason).toBe('approval_required');

    await agent.decide({ conversationId: 'turns', decisions: [{ toolCallId: 'cancel_1', approved: true }] });

    const first = await agent.getTurnTrace({ conversationId: 'turns' }, 1);
    const second = await agent.getTurnTrace({ conversationId: 'turns' }, 2);
    expect(first.rounds.map((round) => round.response!.content)).toEqual(['first']);
    expect(second.rounds.map((round) => round.round)).toEqual([1, 2]);
    expect(second.rounds[1]!.request!.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'cancel_1', name: 'batchCancelOrdersByOrderNo' });
    expect(second.toolCalls.map((call) => call.id)).toEqual(['cancel_1']);
  });

  it('records a model call that failed, with its error', async () => {
    const { agent } = agentFixture([toolCallsReply([weather('w')]), new Error('connection reset')]);
    const result = await agent.ask({ conversationId: 'failed', message: 'weather' });
    expect(result.stopReason).toBe('error');

    const trace = await agent.getTurnTrace({ conversationId: 'failed' }, 1);

    expect(trace.rounds[1]).toMatchObject({ round: 2, error: { code: 'model_unavailable', message: 'connection reset' } });
    expect(trace.rounds[1]!.response).toBeUndefined();
  });

  it('stays within trace.maxBytes, cutting the longest texts it keeps with a marker', async () => {
    const huge = '天气数据'.repeat(20_000);
    const { agent, store } = agentFixture([toolCallsReply([weather('big')]), textReply(huge)], {
      yaml: 'trace: { maxBytes: 8192 }\ntools: { maxOutputChars: 100000, maxTurnOutputChars: 100000 }',
      gateway: testGateway([weatherTool(() => ({ ok: true, text: huge }))]),
    });
    await agent.ask({ conversationId: 'bounded', message: 'weather' });

    const stored = await storedTrace(store, 'bounded', 1);
    expect(sizeOf(stored)).toBeLessThanOrEqual(8192);
    const trace = await agent.getTurnTrace({ conversationId: 'bounded' }, 1);
    // The reply is the trace's own to keep: cut.
    expect(trace.rounds[1]!.response!.content).toMatch(/^天气数据天气数据.*…\[\d+ more characters not kept in the trace\]$/s);
    expect(trace.trimmedCharacters).toBeGreaterThan(70_000);
    // The tool's output is the turn's own message, put back whole from the turn's item.
    const toolMessage = trace.rounds[1]!.request!.messages.find((message) => message.role === 'tool')!;
    expect(toolMessage).toEqual({ role: 'tool', tool_call_id: 'big', name: 'getWeather', content: huge });
    // The short texts are whole.
    expect(trace.rounds[1]!.request!.messages[1]).toEqual({ role: 'user', content: 'weather' });
  });

  it('leaves out the oldest rounds\' requests when cutting texts is not enough, keeping their replies and usage', () => {
    const book = new TraceBook(emptyTrace(1, 'full'));
    for (let round = 1; round <= 40; round++) {
      // Requests that share nothing: leaving one out frees its messages.
      const messages = [{ role: 'system' as const, content: `system ${round} `.repeat(200) }, { role: 'user' as const, content: `question ${round}` }];
      book.addRound({ round: book.nextRound(), startedAt: new Date(0).toISOString(), durationMs: 1, request: { messages, tools: [] }, response: { role: 'assistant', content: `answer ${round}` }, usage: { promptTokens: round, completionTokens: 1 } });
    }

    const fitted = fitTrace(book.trace, 8192);

    expect(sizeOf(fitted)).toBeLessThanOrEqual(8192);
    const expanded = expandTrace(fitted);
    expect(expanded.omittedRequests).toBeGreaterThan(0);
    expect(expanded.omittedRequests).toBeLessThan(40);
    expect(expanded.rounds).toHaveLength(40);
    expect(expanded.rounds[0]!.request).toBeUndefined();
    expect(expanded.rounds[0]).toMatchObject({ round: 1, response: { content: 'answer 1' }, usage: { promptTokens: 1, completionTokens: 1 } });
    const newest = expanded.rounds.at(-1)!.request!.messages;
    expect(newest[0]!.content).toMatch(/…\[\d+ more characters not kept in the trace\]$/s);
    expect(newest[1]).toEqual({ role: 'user', content: 'question 40' });
  });

  it('keeps no texts with trace.contents: none', async () => {
    const { agent } = agentFixture([toolCallsReply([weather('w', '上海')]), textReply('上海晴。')], { yaml: 'trace: { contents: none }' });
    await agent.ask({ conversationId: 'private', message: '上海天气？' });

    const trace = await agent.getTurnTrace({ conversationId: 'private' }, 1);

    const text = JSON.stringify(trace);
    for (const secret of ['上海', '晴', '智能助手', 'city']) expect(text).not.toContain(secret);
    const length = (text: string) => `[${text.length} characters]`;
    expect(trace.rounds[1]!.request!.messages.slice(1)).toEqual([
      { role: 'user', content: length('上海天气？') },
      { role: 'assistant', content: null, tool_calls: [{ id: 'w', type: 'function', function: { name: 'getWeather', arguments: length('{"city":"上海"}') } }] },
      { role: 'tool', tool_call_id: 'w', name: 'getWeather', content: length('{"city":"上海","condition":"晴"}') },
    ]);
    expect(trace.rounds[1]!.request!.tools).toEqual([{ type: 'function', function: { name: 'getWeather' } }, { type: 'function', function: { name: 'batchCancelOrdersByOrderNo' } }]);
    expect(trace.rounds[1]!.usage).toEqual({ promptTokens: 10, completionTokens: 5 });
  });

  it('shows reasoning as its text, and provider data as it is kept, only with trace.contents: full', () => {
    const message = { role: 'assistant' as const, content: 'Hi', toolCalls: [{ id: 'c1', name: 'getWeather', arguments: '{}', providerData: { openai: { extraContent: { google: { thought_signature: 'CALL' } } } } }], reasoning: { text: 'think' }, providerData: { bedrock: { reasoning: [{ text: 'think', signature: 'SIG' }] } } };

    const [full] = traceMessages([message], 'full');
    const [none] = traceMessages([message], 'none');

    expect(full).toEqual({ role: 'assistant', content: 'Hi', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'getWeather', arguments: '{}' }, provider_data: message.toolCalls[0]!.providerData }], reasoning: 'think', provider_data: message.providerData });
    expect(none).toEqual({ role: 'assistant', content: '[2 characters]', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'getWeather', arguments: '[2 characters]' } }], reasoning: '[5 characters]' });
  });

  it('freezes only its own copies, never the tools and messages it was given (a frozen array takes JSON.stringify off its fast path, and the adapters serialize these for every call)', async () => {
    const extension = traceExtension({ enabled: true, maxBytes: 65_536, contents: 'full' });
    const messages: Message[] = [{ role: 'user', content: 'add' }];
    const turn = { turn: 1, state: {}, scratch: {}, history: [], messages } as unknown as TurnContext;
    const providerData = () => ({ openai: { extraContent: { google: { thought_signature: 'SIG', parts: [1, 2] } } } });
    const tool = { name: 'add', description: 'Adds', parameters: { type: 'object', properties: { a: { type: 'number', enum: [1, 2] } }, required: ['a'] } };
    const call = { id: 'c1', name: 'add', arguments: '{"a":1}', providerData: providerData() };
    const reply = { content: null, toolCalls: [call], providerData: providerData(), usage: { promptTokens: 1, completionTokens: 1 } };
    await extension.turnStart!(turn);
    await extension.aroundModelCall!({ messages, tools: [tool], timeoutMs: 1_000 }, async () => reply, turn);
    messages.push({ role: 'assistant', content: null, toolCalls: reply.toolCalls, providerData: reply.providerData }, { role: 'tool', toolCallId: 'c1', name: 'add', content: '1' });
    const running = { id: 'c1', name: 'add', arguments: { a: 1 }, policy: { decision: 'allow' as const, policyIds: ['p1'] } } as unknown as RunningCall;
    await extension.aroundToolCall!(running, async () => ({ ok: true, text: '1' }) as ToolOutput, turn);
    await extension.aroundModelCall!({ messages, tools: [tool], timeoutMs: 1_000 }, async () => ({ content: '1', toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 } }), turn);
    const refused = { id: 'c2', name: 'add', arguments: {}, ok: false, policy: { decision: 'deny' as const, policyIds: ['p2'] } };
    await extension.turnEnd!({ toolCalls: [refused] } as never, turn);

    expect(frozenParts({ tool, reply, messages, running, refused })).toEqual([]);
    const trace = turn.state as StoredTrace;
    expect(Object.isFrozen(trace)).toBe(true);
    expect(trace.tools[0]!.function.parameters).toEqual(tool.parameters);
    const response = trace.rounds[0]!.response as Extract<TraceMessage, { role: 'assistant' }>;
    expect(response.provider_data).toEqual(reply.providerData);
    expect(response.tool_calls![0]!.provider_data).toEqual(call.providerData);
    expect(trace.toolCalls.map((run) => run.policy)).toEqual([running.policy, refused.policy]);
  });

  it('publishes at the turn\'s end only what came after the last model call', async () => {
    const extension = traceExtension({ enabled: true, maxBytes: 65_536, contents: 'full' });
    const turn = { turn: 1, state: {}, scratch: {}, history: [], messages: [] } as unknown as TurnContext;
    const tool = { name: 'add', description: 'Adds', parameters: { type: 'object' } };
    const call = { id: 'c1', name: 'add', arguments: '{}' };
    await extension.turnStart!(turn);
    await extension.aroundModelCall!({ messages: [{ role: 'user', content: 'add' }], tools: [tool], timeoutMs: 1_000 }, async () => ({ content: null, toolCalls: [call], usage: { promptTokens: 1, completionTokens: 1 } }), turn);
    const running = { id: 'c1', name: 'add', arguments: {} } as unknown as RunningCall;
    await extension.aroundToolCall!(running, async () => ({ ok: true, text: '1' }) as ToolOutput, turn);

    // Stopped here (its rounds used up): the call's run came after the last publication.
    await extension.turnEnd!({ toolCalls: [] } as never, turn);
    const stopped = turn.state as StoredTrace;
    expect(stopped.toolCalls.map((run) => run.id)).toEqual(['c1']);

    await extension.turnEnd!({ toolCalls: [] } as never, turn);
    expect(turn.state).toBe(stopped);
  });

  it('keeps nothing with trace.enabled: false, and drops a trace an earlier turn left', async () => {
    const store = createMemoryConversationStore();
    await agentFixture([textReply('traced')], { store }).agent.ask({ conversationId: 'off', message: 'one' });
    const { agent } = agentFixture([textReply('not traced')], { store, yaml: 'trace: { enabled: false }' });

    await agent.ask({ conversationId: 'off', message: 'two' });

    await expect(agent.getTurnTrace({ conversationId: 'off' }, 2)).rejects.toMatchObject({ code: 'trace_not_found' });
    expect(await storedTrace(store, 'off', 2)).toEqual({});
  });

  it('traces every phase of plan-execute, the planner\'s and the summary\'s calls included', async () => {
    const { agent } = agentFixture([
      toolCallsReply([{ id: 'plan_1', name: 'planning', arguments: { action: 'create', tasks: [{ title: '查上海天气' }] } }]),
      textReply('计划好了。'),
      toolCallsReply([weather('task_call')]),
      textReply('上海晴。'),
      textReply('总结：上海晴。'),
    ], { yaml: 'strategy: plan-execute\nmaxRounds: 10' });
    await agent.ask({ conversationId: 'phases', message: '上海天气？' });

    const trace = await agent.getTurnTrace({ conversationId: 'phases' }, 1);

    expect(trace.rounds.map((round) => round.round)).toEqual([1, 2, 3, 4, 5]);
    expect(trace.rounds[0]!.request!.tools.map((tool) => tool.function.name)).toEqual(['planning']);
    expect(trace.rounds[4]!.request!.messages[0]!.content).toMatch(/## Final answer/);
    expect(trace.rounds[4]!.response!.content).toBe('总结：上海晴。');
  });

  it('answers 404 for an unknown conversation or turn, and reads only the caller\'s own conversations', async () => {
    const { agent } = agentFixture([textReply('mine')]);
    await agent.ask({ conversationId: 'owned', owner: 'alice', message: 'hi' });

    await expect(agent.getTurnTrace({ conversationId: 'owned', owner: 'alice' }, 1)).resolves.toMatchObject({ turn: 1 });
    await expect(agent.getTurnTrace({ conversationId: 'owned', owner: 'alice' }, 2)).rejects.toMatchObject({ code: 'turn_not_found' });
    await expect(agent.getTurnTrace({ conversationId: 'owned', owner: 'mallory' }, 1)).rejects.toMatchObject({ code: 'conversation_not_found' });
    await expect(agent.getTurnTrace({ conversationId: 'nobody' }, 1)).rejects.toMatchObject({ code: 'conversation_not_found' });
    await expect(agent.getTurnTrace({ conversationId: 'owned', owner: 'alice' }, 0)).rejects.toMatchObject({ code: 'invalid_turn' });
  });
});
