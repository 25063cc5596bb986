/**
 * The loop's side of a call that waits for a person's input (lib/agent/loop/call-input.ts), with an
 * extension standing in for an MCP server that asks: the pause, the stored turn, the answer given
 * to the call's next run, and the waiting call answered when no answer comes.
 */
import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { describe, expect, it } from 'vitest';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { AwaitingInput, type CallInput } from '../../lib/agent/loop/call-input.ts';
import type { AgentExtension } from '../../lib/agent/extension-api/extension.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { historyViolations } from '../../lib/core/history.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { createScriptedModel, textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { testGateway } from '../support/agent-fixture.ts';

const QUESTION = { message: 'Why cancel ORD7?', requestedSchema: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] } };

/** Asks its question on a call's first run of batchCancelOrdersByOrderNo; on the next, tells the result what it was answered. */
function askingExtension(inputs: Array<CallInput | undefined>): AgentExtension {
  return {
    name: 'asking',
    async aroundToolCall(call, next) {
      if (call.name !== 'batchCancelOrdersByOrderNo') return next();
      inputs.push(call.input);
      if (!call.input) throw new AwaitingInput({ kind: 'elicitation', server: 'fake', request: QUESTION });
      const output = await next();
      return { ...output, text: `${output.text} (answer: ${JSON.stringify(call.input.kind === 'elicitation' ? call.input.result : call.input)})` };
    },
  };
}

function fixture(script: ScriptedStep[], yaml = 'maxRounds: 4', clock = { now: 1_000_000 }) {
  const config = parseConfig(yaml, { source: 'test.yml', environment: {} });
  const model = createScriptedModel(script);
  const gateway = testGateway();
  const inputs: Array<CallInput | undefined> = [];
  const store = createMemoryConversationStore();
  const agent = createAgent(config, { ownerCounters: createMemoryOwnerCounters(), model, gateway, store, logger: silentLogger, extensions: [askingExtension(inputs)], now: () => clock.now });
  return { agent, model, gateway, inputs, clock };
}

const weatherAndCancel = toolCallsReply([
  { id: 'w1', name: 'getWeather', arguments: { city: '上海' } },
  { id: 'c1', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD7'] } },
]);

describe('a call whose server asks the user', () => {
  it('pauses the turn with input_required, the other calls of the round answered', async () => {
    const { agent, model } = fixture([weatherAndCancel]);

    const paused = await agent.ask({ conversationId: 'ask-1', message: '查天气，取消 ORD7' });

    expect(paused).toMatchObject({
      stopReason: 'input_required',
      rounds: 1,
      pendingElicitations: [{ toolCallId: 'c1', name: 'batchCancelOrdersByOrderNo', server: 'fake', ...QUESTION }],
      toolCalls: [{ id: 'w1', name: 'getWeather', ok: true }],
    });
    expect(paused.reply).toContain('batchCancelOrdersByOrderNo (c1) asks: Why cancel ORD7?');
    expect(model.requests).toHaveLength(1);
    const view = await agent.getConversation({ conversationId: 'ask-1' });
    expect(view.turns[0]!.messages.map((message) => (message.role === 'tool' ? message.toolCallId : message.role))).toEqual(['user', 'assistant', 'w1']);
  });

  it('runs the call again with the answer, in the same turn and round count', async () => {
    const { agent, model, gateway, inputs } = fixture([weatherAndCancel, textReply('已取消。')]);
    await agent.ask({ conversationId: 'ask-2', message: '查天气，取消 ORD7' });

    const resumed = await agent.decide({ conversationId: 'ask-2', decisions: [{ toolCallId: 'c1', answer: { action: 'accept', content: { reason: 'duplicate' } } }] });

    expect(resumed).toMatchObject({ turn: 1, stopReason: 'completed', reply: '已取消。', rounds: 2, toolCalls: [{ id: 'w1' }, { id: 'c1', ok: true }] });
    expect(inputs).toEqual([undefined, { kind: 'elicitation', result: { action: 'accept', content: { reason: 'duplicate' } } }]);
    expect(gateway.calls.map((call) => call.name)).toEqual(['getWeather', 'batchCancelOrdersByOrderNo']);
    const answer = model.requests[1]!.messages.find((message) => message.role === 'tool' && message.toolCallId === 'c1');
    expect(answer).toMatchObject({ content: expect.stringContaining('(answer: {"action":"accept","content":{"reason":"duplicate"}})') });
    const view = await agent.getConversation({ conversationId: 'ask-2' });
    expect(historyViolations(view.turns[0]!.messages)).toEqual([]);
  });

  it('waits for approvals and answers together: both listed, every one decided in one request', async () => {
    const { agent } = fixture([weatherAndCancel, textReply('好的。')], 'maxRounds: 4\nmcpServers:\n  fake: { command: unused, requireApproval: [getWeather] }');

    const paused = await agent.ask({ conversationId: 'ask-3', message: '查天气，取消 ORD7' });

    expect(paused).toMatchObject({ stopReason: 'input_required', pendingApprovals: [{ toolCallId: 'w1' }], pendingElicitations: [{ toolCallId: 'c1' }] });
    await expect(agent.decide({ conversationId: 'ask-3', decisions: [{ toolCallId: 'c1', answer: { action: 'cancel' } }] })).rejects.toMatchObject({ code: 'undecided_calls' });
    await expect(agent.decide({ conversationId: 'ask-3', decisions: [{ toolCallId: 'w1', answer: { action: 'decline' } }, { toolCallId: 'c1', answer: { action: 'cancel' } }] }))
      .rejects.toMatchObject({ code: 'invalid_decisions' });
    const resumed = await agent.decide({ conversationId: 'ask-3', decisions: [{ toolCallId: 'w1', approved: false }, { toolCallId: 'c1', answer: { action: 'cancel' } }] });
    expect(resumed).toMatchObject({ stopReason: 'completed', toolCalls: [{ id: 'w1', ok: false }, { id: 'c1', ok: true }] });
  });

  it('answers the call as unanswered once the wait expires, and the next question goes on', async () => {
    const { agent, model, clock } = fixture([weatherAndCancel, textReply('好的。')], 'maxRounds: 4\napprovals: { ttlSeconds: 60 }');
    await agent.ask({ conversationId: 'ask-4', message: '查天气，取消 ORD7' });
    clock.now += 61_000;

    await expect(agent.decide({ conversationId: 'ask-4', decisions: [{ toolCallId: 'c1', answer: { action: 'decline' } }] })).rejects.toMatchObject({ code: 'approval_expired' });
    const next = await agent.ask({ conversationId: 'ask-4', message: '还有别的吗？' });

    expect(next).toMatchObject({ turn: 2, stopReason: 'completed' });
    const answer = model.requests[1]!.messages.find((message) => message.role === 'tool' && message.toolCallId === 'c1');
    expect(answer).toMatchObject({ content: 'Not completed: the tool asked the user a question and nobody answered within 60 s, so the tool was told the user cancelled; it may have done part of its work before it asked: check before repeating it.' });
  });
});
