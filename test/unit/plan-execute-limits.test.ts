import { describe, expect, it } from 'vitest';
import { historyViolations } from '../../lib/core/history.ts';
import type { ModelRequest } from '../../lib/core/ports/model.ts';
import { textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

const kindOf = (request: ModelRequest) => {
  const system = request.messages[0]!.content ?? '';
  return system.includes('## Planning') ? 'planner' : system.includes('## Final answer') ? 'summary' : 'executor';
};
const taskOf = (request: ModelRequest) => [...request.messages].reverse().find((message) => message.role === 'user')!.content as string;
const sinceTask = (request: ModelRequest) => request.messages.slice(request.messages.map((message) => message.role).lastIndexOf('user') + 1);

/** Each task asks for two weather calls in one reply, then answers. */
function planOf(tasks: Array<{ title: string; independent?: boolean }>) {
  return Array.from({ length: 40 }, () => (request: ModelRequest) => {
    const kind = kindOf(request);
    if (kind === 'planner') {
      if (taskOf(request).includes('Progress of the plan')) return textReply('continue');
      return sinceTask(request).some((message) => message.role === 'tool') ? textReply('ok') : toolCallsReply([{ id: `plan_${Math.random()}`, name: 'planning', arguments: { action: 'create', tasks } }]);
    }
    if (kind === 'summary') return textReply('done');
    const task = taskOf(request).split(':')[0]!.replace(' ', '_');
    return sinceTask(request).some((message) => message.role === 'tool')
      ? textReply(`${task} done`)
      : toolCallsReply([{ id: `${task}_a`, name: 'getWeather', arguments: { city: 'a' } }, { id: `${task}_b`, name: 'getWeather', arguments: { city: 'b' } }]);
  });
}

describe('strategy: plan-execute and tools.maxCallsPerTurn', () => {
  it.each([
    ['one after another', false],
    ['side by side', true],
  ])('runs at most tools.maxCallsPerTurn calls in a turn, over all its tasks (%s)', async (_name, independent) => {
    const { agent, gateway } = agentFixture(planOf([{ title: 'First', independent }, { title: 'Second', independent }, { title: 'Third', independent }]), {
      yaml: 'strategy: plan-execute\nmaxRounds: 30\ntools: { maxCallsPerTurn: 3 }',
    });

    const result = await agent.ask({ conversationId: `limits-${independent}`, message: 'Do three things' });

    expect(gateway.calls.length).toBeLessThanOrEqual(3);
    expect(result.toolCalls.filter((call) => call.ok)).toHaveLength(gateway.calls.length);
    const stored = (await agent.getConversation({ conversationId: `limits-${independent}` })).turns[0]!.messages;
    expect(historyViolations(stored)).toEqual([]);
    expect(stored.filter((message) => message.role === 'tool' && /tools\.maxCallsPerTurn/.test(message.content)).length).toBe(6 - gateway.calls.length);
  });

  it('counts the calls made before a pause when the turn goes on after the decision', async () => {
    const script = Array.from({ length: 20 }, () => (request: ModelRequest) => {
      const kind = kindOf(request);
      const done = sinceTask(request).some((message) => message.role === 'tool');
      if (kind === 'planner') return taskOf(request).includes('Progress of the plan') || done ? textReply('ok') : toolCallsReply([{ id: 'plan', name: 'planning', arguments: { action: 'create', tasks: [{ title: 'Cancel' }, { title: 'Weather' }] } }]);
      if (kind === 'summary') return textReply('done');
      if (taskOf(request).startsWith('Task 1')) return done ? textReply('cancelled') : toolCallsReply([{ id: 'cancel', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } }]);
      return done ? textReply('weather') : toolCallsReply([{ id: 'w_a', name: 'getWeather', arguments: { city: 'a' } }, { id: 'w_b', name: 'getWeather', arguments: { city: 'b' } }]);
    });
    const { agent, gateway } = agentFixture(script, { yaml: 'strategy: plan-execute\nmaxRounds: 20\ntools: { maxCallsPerTurn: 2 }\nmcpServers:\n  fake: { command: unused, requireApproval: destructive }' });

    await agent.ask({ conversationId: 'paused-limits', message: 'Cancel, then the weather' });
    const result = await agent.decide({ conversationId: 'paused-limits', decisions: [{ toolCallId: 'cancel', approved: true }] });

    expect(result.stopReason).toBe('completed');
    expect(gateway.calls.map((call) => call.name)).toEqual(['batchCancelOrdersByOrderNo', 'getWeather']);
    const stored = (await agent.getConversation({ conversationId: 'paused-limits' })).turns[0]!.messages;
    expect(historyViolations(stored)).toEqual([]);
    expect(stored.find((message) => message.role === 'tool' && message.toolCallId === 'w_b')).toMatchObject({ content: expect.stringMatching(/its limit \(tools\.maxCallsPerTurn\)/) });
  });
});
