import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { describe, expect, it } from 'vitest';
import type { AgentExtension } from '../../lib/agent/extension-api/extension.ts';
import type { LoopEvent } from '../../lib/agent/loop/loop-events.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { historyViolations } from '../../lib/core/history.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ToolMessage } from '../../lib/core/messages.ts';
import { textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

/** An agent whose extensions are the test's. */
function withExtensions(script: ScriptedStep[], extensions: AgentExtension[], yaml = 'maxRounds: 4') {
  const fixture = agentFixture(script, { yaml });
  const agent = createAgent(fixture.config, { ownerCounters: createMemoryOwnerCounters(), model: fixture.model, gateway: fixture.gateway, store: fixture.store, logger: silentLogger, extensions });
  return { ...fixture, agent };
}

const toolMessages = (messages: readonly { role: string }[]) => messages.filter((message): message is ToolMessage => message.role === 'tool');

/** A built-in tool that counts, keeping its count in the conversation. */
const counter: AgentExtension = {
  name: 'counter',
  tools: [
    {
      definition: { name: 'count', description: 'Adds one to the count.', parameters: { type: 'object', properties: { by: { type: 'integer' } }, required: ['by'] }, annotations: { readOnlyHint: true } },
      run(args, _call, turn) {
        turn.state = { count: Number(turn.state.count ?? 0) + Number(args.by) };
        turn.emit('count', turn.state);
        return { ok: true, text: `count is ${String(turn.state.count)}` };
      },
    },
  ],
  turnEnd: (_result, turn) => ({ count: turn.state.count ?? 0 }),
  view: (state) => ({ count: state.count ?? 0 }),
};

describe('the extension API', () => {
  it('lets beforeModelCall change what is sent, and never what is stored', async () => {
    const seen: string[] = [];
    const { agent, model } = withExtensions([textReply('ok')], [
      {
        name: 'reminder',
        beforeModelCall: (request) => ({ ...request, systemPrompt: `${request.systemPrompt}\nBe brief.`, messages: [...request.messages, { role: 'user', content: '(reminder: be brief)' }], tools: request.tools.filter((tool) => tool.name === 'getWeather') }),
      },
      { name: 'observer', beforeModelCall: (request) => void seen.push(request.systemPrompt), afterModelReply: (reply) => void seen.push(`reply: ${reply.content}`) },
    ]);

    const result = await agent.ask({ conversationId: 'sent', message: 'hi' });

    const sent = model!.requests[0]!;
    expect(sent.messages[0]).toMatchObject({ role: 'system', content: expect.stringMatching(/\nBe brief\.$/) });
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: '(reminder: be brief)' });
    expect(sent.tools.map((tool) => tool.name)).toEqual(['getWeather']);
    expect(seen).toEqual([expect.stringMatching(/Be brief/), 'reply: ok']);
    const stored = (await agent.getConversation({ conversationId: 'sent' })).turns[0]!.messages;
    expect(stored).toEqual([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'ok', toolCalls: [] }]);
    expect(result.reply).toBe('ok');
  });

  it('offers built-in tools beside the MCP tools, runs them through tool control, and keeps their state in the conversation', async () => {
    const events: LoopEvent[] = [];
    const { agent, model, gateway } = withExtensions([
      toolCallsReply([{ id: 'c1', name: 'count', arguments: { by: 2 } }, { id: 'c2', name: 'count', arguments: { by: 'x' } }]),
      textReply('counted'),
      toolCallsReply([{ id: 'c3', name: 'count', arguments: { by: 3 } }]),
      textReply('counted again'),
    ], [counter]);

    const first = await agent.ask({ conversationId: 'counting', message: 'count', onEvent: (event) => events.push(event) });

    expect(model!.requests[0]!.tools.map((tool) => tool.name)).toEqual(['getWeather', 'batchCancelOrdersByOrderNo', 'count']);
    expect(gateway.calls).toEqual([]);
    const answers = toolMessages(model!.requests[1]!.messages);
    expect(answers.map((message) => message.content)).toEqual(['count is 2', expect.stringMatching(/invalid arguments for "count": "by" must be integer/)]);
    expect(first).toMatchObject({ count: 2, toolCalls: [{ id: 'c1', name: 'count', ok: true }, { id: 'c2', ok: false }] });
    expect(events).toContainEqual({ type: 'extension', name: 'count', data: { count: 2 } });

    const second = await agent.ask({ conversationId: 'counting', message: 'again' });
    expect(second).toMatchObject({ turn: 2, count: 5 });
    await expect(agent.getConversation({ conversationId: 'counting' })).resolves.toMatchObject({ count: 5 });
  });

  it('lets aroundToolCall answer a call itself, the first extension outermost', async () => {
    const order: string[] = [];
    const { agent, model, gateway } = withExtensions([toolCallsReply([{ id: 'c1', name: 'getWeather', arguments: { city: '上海' } }]), textReply('ok')], [
      { name: 'outer', aroundToolCall: async (call, next) => { order.push(`outer ${call.name}`); const output = await next(); order.push('outer done'); return output; } },
      { name: 'cache', aroundToolCall: async (call) => { order.push(`cache ${call.name} ${JSON.stringify(call.arguments)}`); return { ok: true, text: 'cached: sunny' }; } },
    ]);

    await agent.ask({ conversationId: 'cached', message: 'weather' });

    expect(order).toEqual(['outer getWeather', 'cache getWeather {"city":"上海"}', 'outer done']);
    expect(gateway.calls).toEqual([]);
    expect(toolMessages(model!.requests[1]!.messages)[0]!.content).toBe('cached: sunny');
  });

  it('routes a call that stands for a real tool through the real tool’s policy and approval, answering the call the model made', async () => {
    const router: AgentExtension = {
      name: 'router',
      tools: [{ definition: { name: 'use_tool', description: 'Calls a tool by name.', parameters: { type: 'object', properties: { tool: { type: 'string' }, arguments: { type: 'object' } }, required: ['tool'] } }, run: () => ({ ok: false, text: 'never run itself' }) }],
      routeToolCall: (call) => {
        if (call.name !== 'use_tool') return undefined;
        const { tool, arguments: args } = JSON.parse(call.arguments) as { tool: string; arguments?: unknown };
        return { ...call, name: tool, arguments: JSON.stringify(args ?? {}) };
      },
    };
    const { agent, model, gateway } = withExtensions([
      toolCallsReply([{ id: 'r1', name: 'use_tool', arguments: { tool: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD5'] } } }]),
      textReply('已取消'),
    ], [router], 'mcpServers:\n  fake: { command: unused, requireApproval: destructive }');

    const paused = await agent.ask({ conversationId: 'routed', message: '取消 ORD5' });
    expect(paused).toMatchObject({ stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'r1', name: 'batchCancelOrdersByOrderNo', server: 'fake', arguments: { orderNos: ['ORD5'] } }] });
    expect(gateway.calls).toEqual([]);

    const done = await agent.decide({ conversationId: 'routed', decisions: [{ toolCallId: 'r1', approved: true }] });
    expect(done).toMatchObject({ stopReason: 'completed', toolCalls: [{ id: 'r1', name: 'batchCancelOrdersByOrderNo', ok: true }] });
    expect(gateway.calls).toEqual([{ name: 'batchCancelOrdersByOrderNo', args: { orderNos: ['ORD5'] } }]);
    const sent = model!.requests[1]!.messages;
    expect(toolMessages(sent)).toEqual([{ role: 'tool', toolCallId: 'r1', name: 'use_tool', content: '{"success":["ORD5"]}' }]);
    expect(historyViolations(sent)).toEqual([]);
  });

  it('refuses an extension event that poses as one of the service’s own, and leaves the conversation free', async () => {
    const { agent, store } = withExtensions([textReply('fine')], [{ name: 'impostor', turnStart: (turn) => turn.emit('turn-end', {}) }]);
    await expect(agent.ask({ conversationId: 'x', message: 'hi', onEvent: () => {} })).rejects.toThrow(/"turn-end".*does not use itself/);
    expect(await store.readAll({ conversationId: 'x' })).toEqual([]);
    await expect(agent.ask({ conversationId: 'x', message: 'hi' })).resolves.toMatchObject({ reply: 'fine' });
  });
});
