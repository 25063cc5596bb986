import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { describe, expect, it } from 'vitest';
import type { AgentExtension, TurnPlan } from '../../lib/agent/extension-api/extension.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

function withExtensions(script: ScriptedStep[], extensions: AgentExtension[], yaml = 'maxRounds: 4') {
  const fixture = agentFixture(script, { yaml });
  const agent = createAgent(fixture.config, { ownerCounters: createMemoryOwnerCounters(), model: fixture.model, gateway: fixture.gateway, store: fixture.store, logger: silentLogger, extensions });
  return { ...fixture, agent };
}

describe('the extension API: prepareTurn', () => {
  it('sets the system prompt and earlier turns of every model call of the turn, chained, and never what is stored', async () => {
    // Prepare
    const seen: TurnPlan[] = [];
    const { agent, model } = withExtensions([textReply('first'), toolCallsReply([{ id: 'w', name: 'getWeather', arguments: { city: '上海' } }]), textReply('second')], [
      {
        name: 'note',
        prepareTurn: (plan) => ({ ...plan, systemPrompt: `${plan.systemPrompt}\n(note)`, history: [{ role: 'user', content: 'Earlier, in short: we met.' }, { role: 'assistant', content: 'Yes.', toolCalls: [] }] }),
      },
      { name: 'observer', prepareTurn: (plan) => void seen.push(plan) },
    ]);
    await agent.ask({ conversationId: 'prepared', message: 'hello' });

    // Act
    await agent.ask({ conversationId: 'prepared', message: 'weather?' });

    // Assess: both rounds of turn 2 start from the prepared plan; the observer saw it after the first extension.
    for (const request of model!.requests.slice(1)) {
      expect(request.messages[0]!.content).toMatch(/\n\(note\)$/);
      expect(request.messages.slice(1, 4)).toEqual([{ role: 'user', content: 'Earlier, in short: we met.' }, { role: 'assistant', content: 'Yes.', toolCalls: [] }, { role: 'user', content: 'weather?' }]);
    }
    expect(seen.map((plan) => plan.question)).toEqual(['hello', 'weather?']);
    expect(seen[1]!.history[0]).toEqual({ role: 'user', content: 'Earlier, in short: we met.' });
    expect(seen[1]!.earlier.window.map((turn) => turn.turn)).toEqual([1]);
    expect(seen[1]!.earlier.window[0]!.messages()).toEqual([{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'first', toolCalls: [] }]);
    const stored = (await agent.getConversation({ conversationId: 'prepared' })).turns.map((turn) => turn.messages[0]);
    expect(stored).toEqual([{ role: 'user', content: 'hello' }, { role: 'user', content: 'weather?' }]);
  });

  it('refuses a prepared history that breaks the invariant, before any model call, and stores nothing', async () => {
    const { agent, model, store } = withExtensions([textReply('never')], [
      { name: 'breaker', prepareTurn: (plan) => ({ ...plan, history: [{ role: 'assistant', content: null, toolCalls: [{ id: 'x', name: 'getWeather', arguments: '{}' }] }] }) },
    ]);

    await expect(agent.ask({ conversationId: 'broken', message: 'hi' })).rejects.toThrow(/extension "breaker" prepared a history that breaks the invariant/);
    expect(model!.requests).toEqual([]);
    expect(await store.readAll({ conversationId: 'broken' })).toEqual([]);
  });

  it('counts the tokens of an extension’s own model calls in the turn’s usage, and gives it the turn’s time', async () => {
    const times: number[] = [];
    const { agent } = withExtensions([textReply('aside', { promptTokens: 7, completionTokens: 3 }), textReply('answer')], [
      {
        name: 'aside',
        async prepareTurn(_plan, turn) {
          times.push(turn.timeLeftMs());
          const reply = await turn.model.complete({ messages: [{ role: 'user', content: 'aside' }], tools: [] });
          turn.addUsage(reply.usage);
        },
      },
    ], 'turn: { timeoutSeconds: 30, reserveSeconds: 2 }');

    const result = await agent.ask({ conversationId: 'usage', message: 'hi' });

    expect(result.usage).toEqual({ promptTokens: 17, completionTokens: 8, conversation: { promptTokens: 17, completionTokens: 8 } });
    expect(times[0]).toBeGreaterThan(20_000);
    expect(times[0]).toBeLessThanOrEqual(28_000);
  });
});
