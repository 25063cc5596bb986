import { describe, expect, it } from 'vitest';
import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { createAgent } from '../../lib/create-agent.ts';
import type { AgentExtension } from '../../lib/agent/extension-api/extension.ts';
import { spentBudget } from '../../lib/agent/budgets/spent.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { BudgetExhaustedError, LimitError } from '../../lib/core/errors.ts';
import { historyViolations } from '../../lib/core/history.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ConversationStore } from '../../lib/core/ports/conversation-store.ts';
import type { LimitName } from '../../lib/core/ports/metrics.ts';
import type { OwnerCounters } from '../../lib/core/ports/owner-counters.ts';
import { createScriptedModel, textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { errorResponse } from '../../lib/http/errors.ts';
import { testGateway } from '../support/agent-fixture.ts';

const MIDNIGHT = Date.UTC(2025, 2, 1);
const tokens = (promptTokens: number, completionTokens: number) => ({ promptTokens, completionTokens });
const weather = (id: string, usage = tokens(100, 20)) => toolCallsReply([{ id, name: 'getWeather', arguments: { city: '上海' } }], usage);
const cancel = (id: string, usage = tokens(100, 20)) => toolCallsReply([{ id, name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] } }], usage);
const answer = (text: string, usage = tokens(100, 20)) => textReply(text, usage);
const APPROVALS = 'mcpServers:\n  fake: { command: unused, requireApproval: destructive }';

interface Options {
  yaml?: string;
  now?: () => number;
  store?: ConversationStore;
  counters?: OwnerCounters;
  extensions?: AgentExtension[];
}

/** An agent over fakes with the budgets of `yaml`, counting limits reached as metrics would. */
function budgeted(script: ScriptedStep[], options: Options = {}) {
  const config = parseConfig(`maxRounds: 6\n${options.yaml ?? ''}`, { source: 'test.yml', environment: {} });
  const model = createScriptedModel(script);
  const store = options.store ?? createMemoryConversationStore();
  const counters = options.counters ?? createMemoryOwnerCounters();
  const limitsReached: Array<[LimitName, string]> = [];
  const metrics = { turnCompleted: () => {}, turnFailed: () => {}, limitReached: (limit: LimitName, outcome: string) => void limitsReached.push([limit, outcome]) };
  const agent = createAgent(config, {
    model,
    gateway: testGateway(),
    store,
    logger: silentLogger,
    ownerCounters: counters,
    metrics,
    ...(options.now ? { now: options.now } : {}),
    ...(options.extensions ? { extensions: options.extensions } : {}),
  });
  return { agent, model, store, counters, limitsReached };
}

const refusal = (promise: Promise<unknown>) => promise.then(() => { throw new Error('expected a refusal'); }, (error: unknown) => error as LimitError);

describe('spentBudget', () => {
  it.each([
    ['nothing is limited', {}, { turn: 9e9, conversation: 9e9, ownerToday: 9e9 }, undefined],
    ['under every limit', { tokensPerTurn: 100, tokensPerConversation: 1000, tokensPerOwnerPerDay: 5000 }, { turn: 99, conversation: 999, ownerToday: 4999 }, undefined],
    ['a turn at its limit', { tokensPerTurn: 100 }, { turn: 100, conversation: 0, ownerToday: 0 }, { limit: 'tokensPerTurn', allowedTokens: 100, usedTokens: 100 }],
    ['a conversation over its limit', { tokensPerConversation: 1000 }, { turn: 0, conversation: 1200, ownerToday: 0 }, { limit: 'tokensPerConversation', allowedTokens: 1000, usedTokens: 1200 }],
    ['an owner’s day, resetting at the next midnight UTC', { tokensPerOwnerPerDay: 5000 }, { turn: 0, conversation: 0, ownerToday: 5000 }, { limit: 'tokensPerOwnerPerDay', allowedTokens: 5000, usedTokens: 5000, resetsAt: '2025-03-02T00:00:00.000Z' }],
    ['all three: the conversation’s, which never resets, is named', { tokensPerTurn: 1, tokensPerConversation: 1, tokensPerOwnerPerDay: 1 }, { turn: 5, conversation: 5, ownerToday: 5 }, { limit: 'tokensPerConversation' }],
    ['a turn and a day: the day’s', { tokensPerTurn: 1, tokensPerOwnerPerDay: 1 }, { turn: 5, conversation: 5, ownerToday: 5 }, { limit: 'tokensPerOwnerPerDay' }],
  ])('%s', (_case, limits, used, expected) => {
    const spent = spentBudget(limits, { ...used, day: MIDNIGHT / 86_400_000 });
    if (expected === undefined) expect(spent).toBeUndefined();
    else expect(spent).toMatchObject(expected);
  });
});

describe('limits.tokensPerTurn', () => {
  it('stops a turn before the model call that would go over it, with the history invariant kept and a reply naming the limit', async () => {
    const { agent, model, limitsReached } = budgeted([weather('w1'), weather('w2'), answer('never asked')], { yaml: 'limits: { tokensPerTurn: 200 }' });

    const result = await agent.ask({ conversationId: 'per-turn', message: '上海天气?' });

    expect(result).toMatchObject({
      stopReason: 'budget_exhausted',
      rounds: 2,
      budget: { limit: 'tokensPerTurn', allowedTokens: 200, usedTokens: 240 },
      usage: { promptTokens: 200, completionTokens: 40, conversation: { promptTokens: 200, completionTokens: 40 } },
    });
    expect(result.reply).toMatch(/token budget ran out \(this turn used 240 tokens of the 200 a turn may use \(limits\.tokensPerTurn\)/);
    expect(result.reply).toContain('Tools used so far: getWeather');
    expect(model.requests).toHaveLength(2);
    expect(limitsReached).toEqual([['tokensPerTurn', 'stopped']]);
    const stored = await agent.getConversation({ conversationId: 'per-turn' });
    expect(stored.turns[0]).toMatchObject({ stopReason: 'budget_exhausted' });
    expect(historyViolations(stored.turns[0]!.messages)).toEqual([]);
    expect(stored.turns[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
  });

  it('gives the next turn of the conversation a budget of its own', async () => {
    const { agent } = budgeted([weather('w1'), weather('w2'), answer('晴天')], { yaml: 'limits: { tokensPerTurn: 200 }' });
    await agent.ask({ conversationId: 'per-turn-next', message: '上海天气?' });
    await expect(agent.ask({ conversationId: 'per-turn-next', message: '继续' })).resolves.toMatchObject({ stopReason: 'completed', reply: '晴天', usage: { conversation: { promptTokens: 300, completionTokens: 60 } } });
  });
});

describe('limits.tokensPerConversation', () => {
  it('reports the conversation’s totals with every turn, stops the turn that reaches it, and refuses the next request before any model call', async () => {
    const { agent, model, limitsReached } = budgeted([answer('one'), weather('w1'), weather('w2'), answer('never asked')], { yaml: 'limits: { tokensPerConversation: 300 }' });

    const first = await agent.ask({ conversationId: 'capped', message: 'first' });
    const second = await agent.ask({ conversationId: 'capped', message: 'second' });
    const refused = await refusal(agent.ask({ conversationId: 'capped', message: 'third' }));

    expect(first).toMatchObject({ stopReason: 'completed', usage: { promptTokens: 100, completionTokens: 20, conversation: { promptTokens: 100, completionTokens: 20 } } });
    expect(second).toMatchObject({ stopReason: 'budget_exhausted', rounds: 2, usage: { promptTokens: 200, completionTokens: 40, conversation: { promptTokens: 300, completionTokens: 60 } } });
    expect(refused).toBeInstanceOf(BudgetExhaustedError);
    expect(refused).toMatchObject({ code: 'budget_exhausted', details: { limit: 'tokensPerConversation', allowedTokens: 300, usedTokens: 360 }, retryAfterSeconds: undefined });
    expect(refused.message).toMatch(/start a new conversation/);
    expect(model.requests).toHaveLength(3);
    // Refused before the turn was claimed: nothing of it is stored.
    expect((await agent.getConversation({ conversationId: 'capped' })).turns.map((turn) => turn.turn)).toEqual([1, 2]);
    expect(limitsReached).toEqual([['tokensPerConversation', 'stopped'], ['tokensPerConversation', 'refused']]);
  });

  it('answers the refusal with 429 and the limit in the error body, without Retry-After (time does not reset it)', async () => {
    const { agent } = budgeted([answer('one')], { yaml: 'limits: { tokensPerConversation: 100 }' });
    await agent.ask({ conversationId: 'capped-http', message: 'first' });
    const response = errorResponse(await refusal(agent.ask({ conversationId: 'capped-http', message: 'again' })), silentLogger);
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBeUndefined();
    expect(JSON.parse(response.body)).toEqual({ error: { code: 'budget_exhausted', message: expect.stringMatching(/limits\.tokensPerConversation/), limit: 'tokensPerConversation', allowedTokens: 100, usedTokens: 120 } });
  });

  it('still replays a finished request of a spent conversation', async () => {
    const { agent, model } = budgeted([answer('one')], { yaml: 'limits: { tokensPerConversation: 100 }' });
    const first = await agent.ask({ conversationId: 'capped-replay', message: 'first', requestId: 'r1' });
    await expect(agent.ask({ conversationId: 'capped-replay', message: 'first', requestId: 'r1' })).resolves.toEqual(first);
    expect(model.requests).toHaveLength(1);
  });
});

describe('budgets reach every model call', () => {
  it('counts an extension’s own model call, and refuses a turn with 429 when nothing else happened before its budget ran out', async () => {
    const summarizer: AgentExtension = {
      name: 'summarizer',
      async turnStart(turn) {
        await turn.model.complete({ messages: [{ role: 'user', content: 'summarize' }], tools: [] });
      },
    };
    const { agent, model, store } = budgeted([answer('summary', tokens(250, 50)), answer('never asked')], { yaml: 'limits: { tokensPerTurn: 200 }', extensions: [summarizer] });

    const refused = await refusal(agent.ask({ conversationId: 'extension-call', message: 'hi' }));

    expect(refused).toMatchObject({ code: 'budget_exhausted', exhaustion: { limit: 'tokensPerTurn', usedTokens: 300 } });
    expect(model.requests).toHaveLength(1);
    // The claim was given back: the conversation may go on.
    expect(await store.readAll({ conversationId: 'extension-call' })).toEqual([]);
  });

  it('stops plan-execute between its phases: planner, executors and summary all pass the check', async () => {
    const plan = toolCallsReply([{ id: 'p1', name: 'planning', arguments: { action: 'create', tasks: [{ title: 'Weather in Shanghai', independent: true }, { title: 'Weather in Beijing', independent: false }] } }], tokens(100, 20));
    const { agent, model } = budgeted([plan, answer('planned'), weather('w1'), answer('task 1 done'), answer('never asked')], { yaml: 'strategy: plan-execute\nlimits: { tokensPerTurn: 400 }' });

    const result = await agent.ask({ conversationId: 'plan-budget', message: 'Weather in Shanghai and Beijing?' });

    expect(result).toMatchObject({ stopReason: 'budget_exhausted', budget: { limit: 'tokensPerTurn', usedTokens: 480 } });
    expect(model.requests).toHaveLength(4);
    expect(historyViolations((await agent.getConversation({ conversationId: 'plan-budget' })).turns[0]!.messages)).toEqual([]);
  });
});

describe('limits.tokensPerOwnerPerDay', () => {
  it('refuses an owner whose day is spent, in any conversation, until midnight UTC, while other owners go on', async () => {
    let now = MIDNIGHT - 60_000;
    const { agent, model, limitsReached } = budgeted([weather('w1'), weather('w2'), answer('bob'), answer('next day')], { yaml: 'limits: { tokensPerOwnerPerDay: 200 }', now: () => now });

    const spent = await agent.ask({ conversationId: 'a-1', owner: 'alice', message: 'weather' });
    const refused = await refusal(agent.ask({ conversationId: 'a-2', owner: 'alice', message: 'another conversation' }));
    const bob = await agent.ask({ conversationId: 'b-1', owner: 'bob', message: 'hi' });
    now = MIDNIGHT + 1_000;
    const tomorrow = await agent.ask({ conversationId: 'a-2', owner: 'alice', message: 'a new day' });

    expect(spent).toMatchObject({ stopReason: 'budget_exhausted', budget: { limit: 'tokensPerOwnerPerDay', allowedTokens: 200, usedTokens: 240, resetsAt: '2025-03-01T00:00:00.000Z' } });
    expect(refused).toMatchObject({ code: 'budget_exhausted', details: { limit: 'tokensPerOwnerPerDay', resetsAt: '2025-03-01T00:00:00.000Z' }, retryAfterSeconds: 60 });
    expect(bob).toMatchObject({ stopReason: 'completed', reply: 'bob' });
    expect(tomorrow).toMatchObject({ stopReason: 'completed', reply: 'next day' });
    expect(model.requests).toHaveLength(4);
    expect(limitsReached).toEqual([['tokensPerOwnerPerDay', 'stopped'], ['tokensPerOwnerPerDay', 'refused']]);
    const response = errorResponse(refused, silentLogger);
    expect(response).toMatchObject({ statusCode: 429, headers: { 'retry-after': '60' } });
  });

  it('counts callers without an owner (no authentication) as one', async () => {
    const { agent } = budgeted([answer('one', tokens(150, 50))], { yaml: 'limits: { tokensPerOwnerPerDay: 200 }' });
    await agent.ask({ conversationId: 'anonymous-1', message: 'hi' });
    await expect(refusal(agent.ask({ conversationId: 'anonymous-2', message: 'hi' }))).resolves.toMatchObject({ details: { limit: 'tokensPerOwnerPerDay', usedTokens: 200 } });
  });

  it('lets approved calls run on a spent day, then stops the turn before its next model call', async () => {
    const { agent, model } = budgeted([cancel('c1', tokens(150, 50)), answer('never asked')], { yaml: `${APPROVALS}\nlimits: { tokensPerOwnerPerDay: 200 }` });
    const paused = await agent.ask({ conversationId: 'approve-spent', owner: 'alice', message: '取消订单 ORD1' });
    expect(paused.stopReason).toBe('approval_required');

    const resumed = await agent.decide({ conversationId: 'approve-spent', owner: 'alice', decisions: [{ toolCallId: 'c1', approved: true }] });

    expect(resumed).toMatchObject({ stopReason: 'budget_exhausted', toolCalls: [{ id: 'c1', name: 'batchCancelOrdersByOrderNo', ok: true }], budget: { limit: 'tokensPerOwnerPerDay' } });
    expect(model.requests).toHaveLength(1);
    expect(historyViolations((await agent.getConversation({ conversationId: 'approve-spent', owner: 'alice' })).turns[0]!.messages)).toEqual([]);
  });

  it('writes the owner’s count once per model call, and reads it once per turn', async () => {
    const counters = createMemoryOwnerCounters();
    const calls: string[] = [];
    const counting: OwnerCounters = {
      tokensOn: (...args) => (calls.push('read'), counters.tokensOn(...args)),
      addTokens: (...args) => (calls.push(`add ${args[2]}`), counters.addTokens(...args)),
      acquireTurnSlot: (...args) => (calls.push('take slot'), counters.acquireTurnSlot(...args)),
      renewTurnSlot: (...args) => (calls.push('renew slot'), counters.renewTurnSlot(...args)),
      releaseTurnSlot: (...args) => (calls.push('give slot'), counters.releaseTurnSlot(...args)),
    };
    const { agent } = budgeted([weather('w1'), weather('w2'), answer('done', tokens(1, 2))], { yaml: 'limits: { tokensPerOwnerPerDay: 100000 }', counters: counting });

    await agent.ask({ conversationId: 'counted', owner: 'alice', message: 'weather' });

    expect(calls).toEqual(['take slot', 'read', 'add 120', 'add 120', 'add 3', 'give slot']);
  });
});

describe('limits.concurrentTurnsPerOwner', () => {
  /** A model step that waits until the test lets it answer. */
  function gate() {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    let reached!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    const step: ScriptedStep = async () => {
      reached();
      await opened;
      return answer('slow');
    };
    return { step, open, arrived };
  }

  it('refuses an owner’s turn beyond the limit with too_many_turns while another owner’s turn runs, and frees the slot when the turn ends', async () => {
    const slow = gate();
    const { agent, limitsReached } = budgeted([slow.step, answer('bob'), answer('alice again')], { yaml: 'limits: { concurrentTurnsPerOwner: 1 }' });

    const running = agent.ask({ conversationId: 'a-1', owner: 'alice', message: 'slow' });
    await slow.arrived;
    const refused = await refusal(agent.ask({ conversationId: 'a-2', owner: 'alice', message: 'second' }));
    const bob = await agent.ask({ conversationId: 'b-1', owner: 'bob', message: 'hi' });
    slow.open();
    await running;
    const after = await agent.ask({ conversationId: 'a-2', owner: 'alice', message: 'second, later' });

    expect(refused).toBeInstanceOf(LimitError);
    expect(refused).toMatchObject({ code: 'too_many_turns', details: { limit: 'concurrentTurnsPerOwner', allowedTurns: 1 }, retryAfterSeconds: 5 });
    expect(errorResponse(refused, silentLogger)).toMatchObject({ statusCode: 429, headers: { 'retry-after': '5' } });
    expect(bob.reply).toBe('bob');
    expect(after.reply).toBe('alice again');
    expect(limitsReached).toEqual([['concurrentTurnsPerOwner', 'refused']]);
  });

  it('holds no slot for a turn paused for approval, nor after a turn that failed', async () => {
    const { agent } = budgeted([cancel('c1'), new Error('model down'), answer('fine')], { yaml: `${APPROVALS}\nlimits: { concurrentTurnsPerOwner: 1 }` });

    await expect(agent.ask({ conversationId: 'paused', owner: 'alice', message: '取消订单 ORD1' })).resolves.toMatchObject({ stopReason: 'approval_required' });
    await expect(agent.ask({ conversationId: 'failing', owner: 'alice', message: 'hi' })).rejects.toMatchObject({ code: 'model_unavailable' });
    await expect(agent.ask({ conversationId: 'fine', owner: 'alice', message: 'hi' })).resolves.toMatchObject({ reply: 'fine' });
  });

  it('takes over a slot whose holder died once its lease ended', async () => {
    let now = Date.UTC(2025, 0, 1);
    const counters = createMemoryOwnerCounters();
    // A turn of a process that died: its slot is held until its lease ends.
    await counters.acquireTurnSlot('alice', { slots: 1, holder: 'dead', leaseExpiresAt: now + 60_000, now });
    const { agent } = budgeted([answer('after the lease')], { yaml: 'limits: { concurrentTurnsPerOwner: 1 }', counters, now: () => now });

    await expect(refusal(agent.ask({ conversationId: 'a-1', owner: 'alice', message: 'hi' }))).resolves.toMatchObject({ code: 'too_many_turns' });
    now += 60_001;
    await expect(agent.ask({ conversationId: 'a-1', owner: 'alice', message: 'hi' })).resolves.toMatchObject({ reply: 'after the lease' });
  });

  it('does not limit callers without an owner, nor anyone with 0', async () => {
    const first = gate();
    const second = gate();
    const anonymous = budgeted([first.step, second.step], { yaml: 'limits: { concurrentTurnsPerOwner: 1 }' });
    const turns = [anonymous.agent.ask({ conversationId: 'x-1', message: 'a' }), anonymous.agent.ask({ conversationId: 'x-2', message: 'b' })];
    await Promise.all([first.arrived, second.arrived]);
    first.open();
    second.open();
    await expect(Promise.all(turns)).resolves.toHaveLength(2);

    const third = gate();
    const fourth = gate();
    const unlimited = budgeted([third.step, fourth.step], { yaml: 'limits: { concurrentTurnsPerOwner: 0 }' });
    const owned = [unlimited.agent.ask({ conversationId: 'y-1', owner: 'alice', message: 'a' }), unlimited.agent.ask({ conversationId: 'y-2', owner: 'alice', message: 'b' })];
    await Promise.all([third.arrived, fourth.arrived]);
    third.open();
    fourth.open();
    await expect(Promise.all(owned)).resolves.toHaveLength(2);
  });
});
