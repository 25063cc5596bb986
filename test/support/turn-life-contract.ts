import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, InputError } from '../../lib/core/errors.ts';
import { condenseTurn, estimateTokens, historyViolations } from '../../lib/core/history.ts';
import type { HistoryMessage, ToolMessage } from '../../lib/core/messages.ts';
import type { ConversationKey, ConversationStore, TurnWrite } from '../../lib/core/ports/conversation-store.ts';
import type { TurnResult } from '../../lib/core/turn.ts';
import { textReply, toolCallsReply, type ScriptedStep } from '../../lib/testing/scripted-model.ts';
import { agentFixture, cancelTool, testGateway, weatherTool } from './agent-fixture.ts';
import { claimWrite, completeWrite } from './store-contract.ts';

const START = Date.UTC(2025, 0, 1, 12, 0, 0);
/** turn.leaseSeconds, the default: a claim's lease, renewed while its process lives. */
const LEASE_MS = 30_000;
const APPROVALS = 'maxRounds: 4\nmcpServers:\n  fake: { command: unused, requireApproval: destructive }';

const weather = (id: string, city = '上海') => ({ id, name: 'getWeather', arguments: { city } });
const cancel = (id: string, orderNos = ['ORD1']) => ({ id, name: 'batchCancelOrdersByOrderNo', arguments: { orderNos } });

/** A model step that waits until released, to hold a turn open. */
function held(reply: ReturnType<typeof textReply>) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const step: ScriptedStep = async () => {
    await gate;
    return reply;
  };
  return { step, release };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => {
    throw new Error('expected a rejection');
  }, (error: unknown) => error);
}

const toolMessages = (messages: readonly { role: string }[]) => messages.filter((message): message is ToolMessage => message.role === 'tool');

/** A store that logs each write it passes on: what a turn costs, and in which order. */
function countingStore(store: ConversationStore) {
  const writes: string[] = [];
  const counted: ConversationStore = {
    ...store,
    readRecent: (key, wantsMore) => store.readRecent(key, wantsMore),
    readAll: (key) => store.readAll(key),
    create: (key, turn, write) => (writes.push(`create ${write.status}`), store.create(key, turn, write)),
    update: (key, turn, expected, write) => (writes.push(`update ${expected.status}->${write.status}`), store.update(key, turn, expected, write)),
    remove: (key, turn, expected) => (writes.push('remove'), store.remove(key, turn, expected)),
    deleteConversation: (key) => store.deleteConversation(key),
  };
  return { store: counted, writes };
}

/** What a dead process leaves: a running turn whose last round's calls were recorded, not answered. */
function deadTurn(leaseExpiresAt: number): TurnWrite {
  return {
    ...claimWrite('dead-claim', 'dead-request', '取消订单 ORD1 和 ORD2', leaseExpiresAt),
    messages: [
      { role: 'user', content: '取消订单 ORD1 和 ORD2' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_a', name: 'batchCancelOrdersByOrderNo', arguments: '{"orderNos":["ORD1"]}' }, { id: 'call_b', name: 'batchCancelOrdersByOrderNo', arguments: '{"orderNos":["ORD2"]}' }] },
      { role: 'tool', toolCallId: 'call_a', name: 'batchCancelOrdersByOrderNo', content: '{"success":["ORD1"]}' },
    ],
    result: { rounds: 1, toolCalls: [{ id: 'call_a', name: 'batchCancelOrdersByOrderNo', arguments: { orderNos: ['ORD1'] }, ok: true, durationMs: 5 }], usage: { promptTokens: 10, completionTokens: 5 } },
  };
}

/**
 * A turn's life through the agent, on a real store: claim and complete, conflicts and replays,
 * interrupted turns, round records, history within budget, approvals across requests.
 */
export function turnLifeContract(createStore: () => ConversationStore): void {
  let time: number;
  const now = () => time;
  const fixture = (script: ScriptedStep[] | null, options: { yaml?: string; store?: ConversationStore; gateway?: ReturnType<typeof testGateway> } = {}) =>
    agentFixture(script, { store: options.store ?? createStore(), now, ...options });
  const conversation = () => `c-${randomUUID()}`;

  beforeEach(() => {
    time = START;
  });

  describe('a turn', () => {
    it('runs and is stored whole; the next question carries it as history', async () => {
      const { agent, model } = fixture([toolCallsReply([weather('c1')]), textReply('晴天'), textReply('明天也晴')]);
      const conversationId = conversation();
      const first = await agent.ask({ conversationId, message: '上海天气?' });
      const second = await agent.ask({ conversationId, message: '明天呢?' });
      expect([first.turn, second.turn]).toEqual([1, 2]);
      const sent = model!.requests[2]!.messages;
      expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
      expect(historyViolations(sent)).toEqual([]);
      const view = await agent.getConversation({ conversationId });
      expect(view.turns.map((turn) => [turn.turn, turn.stopReason])).toEqual([[1, 'completed'], [2, 'completed']]);
    });

    it('refuses another request while a turn runs: 409 conversation_busy, retry after the lease', async () => {
      const slow = held(textReply('done'));
      const { agent } = fixture([slow.step]);
      const conversationId = conversation();
      const running = agent.ask({ conversationId, message: 'first', requestId: 'first' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const error = await rejection(agent.ask({ conversationId, message: 'second' }));
      expect(error).toBeInstanceOf(ConflictError);
      expect(error).toMatchObject({ code: 'conversation_busy', retryAfterSeconds: LEASE_MS / 1000 });
      expect((error as Error).message).toMatch(/interrupted/);
      const again = await rejection(agent.ask({ conversationId, message: 'first', requestId: 'first' }));
      expect(again).toMatchObject({ code: 'turn_in_progress', retryAfterSeconds: LEASE_MS / 1000 });
      slow.release();
      await expect(running).resolves.toMatchObject({ turn: 1, reply: 'done' });
    });

    it('lets exactly one of two racing requests run the turn', async () => {
      const { agent, model } = fixture([textReply('one'), textReply('two')]);
      const conversationId = conversation();
      const outcomes = await Promise.allSettled([agent.ask({ conversationId, message: 'a' }), agent.ask({ conversationId, message: 'b' })]);
      const finished = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      expect(finished).toHaveLength(1);
      expect(refused.map((outcome) => (outcome.reason as ConflictError).code)).toEqual(['conversation_busy']);
      expect(model!.requests).toHaveLength(1);
    });

    it('replays a finished request’s turn without running anything again', async () => {
      const { agent, model, gateway } = fixture([toolCallsReply([cancel('c1')]), textReply('已取消')]);
      const conversationId = conversation();
      const first = await agent.ask({ conversationId, message: '取消 ORD1', requestId: 'req-1' });
      const retry = await agent.ask({ conversationId, message: '取消 ORD1', requestId: 'req-1' });
      expect(retry).toEqual(first);
      expect(model!.requests).toHaveLength(2);
      expect(gateway.calls).toHaveLength(1);
    });

    it('refuses another message under a finished request’s requestId (422 request_id_reused), and replays the same message', async () => {
      const { agent, model } = fixture([textReply('已查到')]);
      const conversationId = conversation();
      const first = await agent.ask({ conversationId, message: '查订单 ORD1', requestId: 'req-digest' });
      const reused = await rejection(agent.ask({ conversationId, message: 'anything else', requestId: 'req-digest' }));
      expect(reused).toBeInstanceOf(InputError);
      expect(reused).toMatchObject({ code: 'request_id_reused' });
      expect(await rejection(agent.ask({ conversationId, message: '查订单 ORD1', instructions: 'other instructions', requestId: 'req-digest' }))).toMatchObject({ code: 'request_id_reused' });
      expect(await agent.ask({ conversationId, message: '查订单 ORD1', requestId: 'req-digest' })).toEqual(first);
      expect(model!.requests).toHaveLength(1);
    });

    it('replays a turn stored before request digests to its requestId, as before them', async () => {
      const store = createStore();
      const key: ConversationKey = { conversationId: conversation() };
      await store.create(key, 1, completeWrite(key, 1, 'old-claim', 'old-request'));
      const { agent, model } = fixture([], { store });
      const replayed = await agent.ask({ ...key, message: 'a message the old turn never saw', requestId: 'old-request' });
      expect(replayed).toMatchObject({ conversationId: key.conversationId, turn: 1 });
      expect(model!.requests).toHaveLength(0);
    });

    it('costs a claim and a completion, and two records per round whose calls may change something', async () => {
      const { store, writes } = countingStore(createStore());
      const { agent } = fixture([toolCallsReply([weather('w1')]), toolCallsReply([cancel('c1'), weather('w2')]), textReply('done')], { store });
      await agent.ask({ conversationId: conversation(), message: 'weather, then cancel' });
      expect(writes).toEqual(['create running', 'update running->running', 'update running->running', 'update running->complete']);
    });

    it('records every message frozen all the way down, and a record read back is a copy that can be changed', async () => {
      const written: HistoryMessage[][] = [];
      const inner = createStore();
      const store: ConversationStore = { ...inner, update: (key, turn, expected, write, options) => (written.push([...write.messages]), inner.update(key, turn, expected, write, options)) };
      const conversationId = conversation();
      const { agent } = fixture([toolCallsReply([cancel('c1'), weather('w1')]), textReply('done')], { store });
      await agent.ask({ conversationId, message: '取消 ORD1' });

      expect(written.map((messages) => messages.length)).toEqual([2, 4, 5]);
      const unfrozen = written.flat().flatMap((message) => [message, ...(message.role === 'assistant' ? [message.toolCalls, ...message.toolCalls] : [])]).filter((part) => !Object.isFrozen(part));
      expect(unfrozen).toEqual([]);
      const [record] = await inner.readAll({ conversationId });
      const read = record!.messages();
      const assistant = read[1] as Extract<HistoryMessage, { role: 'assistant' }>;
      assistant.toolCalls.push({ id: 'c2', name: 'getWeather', arguments: '{}' });
      assistant.content = 'changed';
      const [again] = await inner.readAll({ conversationId });
      expect(again!.messages()[1]).toEqual({ role: 'assistant', content: null, toolCalls: [expect.objectContaining({ id: 'c1' }), expect.objectContaining({ id: 'w1' })] });
    });

    it('has the round recorded, calls unanswered, while a call that may change something runs', async () => {
      const store = createStore();
      const conversationId = conversation();
      let seenDuringCall: HistoryMessage[] | undefined;
      const gateway = testGateway([
        weatherTool(),
        cancelTool(async (args) => {
          const [record] = await store.readRecent({ conversationId }, () => true);
          seenDuringCall = record?.messages();
          return { ok: true, text: JSON.stringify({ success: args.orderNos }) };
        }),
      ]);
      const { agent } = fixture([toolCallsReply([cancel('c1')]), textReply('done')], { store, gateway });
      await agent.ask({ conversationId, message: '取消 ORD1' });
      expect(seenDuringCall?.map((message) => message.role)).toEqual(['user', 'assistant']);
      expect(seenDuringCall?.[1]).toMatchObject({ toolCalls: [{ id: 'c1', name: 'batchCancelOrdersByOrderNo' }] });
    });
  });

  describe('a turn whose process died', () => {
    it('blocks the conversation only until its lease ends, then is completed as interrupted before the next turn', async () => {
      const store = createStore();
      const key: ConversationKey = { conversationId: conversation() };
      await store.create(key, 1, deadTurn(START + 60_000));
      const { agent, model } = fixture([textReply('ORD1 已取消；ORD2 请先确认状态。')], { store });

      const busy = await rejection(agent.ask({ ...key, message: '结果如何?' }));
      expect(busy).toMatchObject({ code: 'conversation_busy', retryAfterSeconds: 60 });

      time = START + 60_001;
      const next = await agent.ask({ ...key, message: '结果如何?' });
      expect(next).toMatchObject({ turn: 2, stopReason: 'completed' });
      const sent = model!.requests[0]!.messages;
      expect(historyViolations(sent)).toEqual([]);
      const answers = toolMessages(sent);
      expect(answers.map((message) => message.toolCallId)).toEqual(['call_a', 'call_b']);
      expect(answers[0]!.content).toBe('{"success":["ORD1"]}');
      expect(answers[1]!.content).toMatch(/the service stopped while this call was running; its outcome is unknown: check before repeating it/);

      const view = await agent.getConversation(key);
      expect(view.turns.map((turn) => [turn.turn, turn.stopReason])).toEqual([[1, 'interrupted'], [2, 'completed']]);
    });

    it('gives the dead request’s retry the interrupted turn, without running anything', async () => {
      const store = createStore();
      const key: ConversationKey = { conversationId: conversation() };
      await store.create(key, 1, deadTurn(START + 1_000));
      const { agent, model, gateway } = fixture([], { store });
      time = START + 1_001;
      const retry = await agent.ask({ ...key, message: '取消订单 ORD1 和 ORD2', requestId: 'dead-request' });
      expect(retry).toMatchObject({ turn: 1, stopReason: 'interrupted', rounds: 1 });
      expect(retry.toolCalls.map((call) => [call.id, call.ok])).toEqual([['call_a', true], ['call_b', false]]);
      expect(retry.reply).toMatch(/check before repeating/);
      expect(model!.requests).toHaveLength(0);
      expect(gateway.calls).toHaveLength(0);
    });

    it('shows as interrupted in the conversation once its lease ended, even before another request', async () => {
      const store = createStore();
      const key: ConversationKey = { conversationId: conversation() };
      await store.create(key, 1, deadTurn(START + 1_000));
      const { agent } = fixture(null, { store });
      await expect(agent.getConversation(key)).rejects.toMatchObject({ code: 'conversation_not_found' });
      time = START + 1_001;
      const view = await agent.getConversation(key);
      expect(view.turns).toHaveLength(1);
      expect(view.turns[0]).toMatchObject({ turn: 1, stopReason: 'interrupted' });
      expect(historyViolations(view.turns[0]!.messages)).toEqual([]);
    });
  });

  describe('history', () => {
    it('sends the newest whole turns within history.maxTokens, after the question and answer of the next older one', async () => {
      const turns = 8;
      const script: ScriptedStep[] = [];
      for (let turn = 1; turn <= turns; turn += 1) script.push(toolCallsReply([weather(`w${turn}`, `city ${turn}`)]), textReply(`Answer ${turn}: sunny.`));
      const writer = fixture(script, { yaml: 'history: { maxTokens: 1000000 }' });
      const conversationId = conversation();
      for (let turn = 1; turn <= turns; turn += 1) await writer.agent.ask({ conversationId, message: `Question ${turn}` });
      const stored = (await writer.agent.getConversation({ conversationId })).turns.map((turn) => turn.messages);
      const tokens = stored.map((messages) => estimateTokens(messages));
      const budget = tokens[7]! + tokens[6]! + 10;

      const reader = fixture([textReply('ok')], { yaml: `history: { maxTokens: ${budget} }`, store: writer.store });
      await reader.agent.ask({ conversationId, message: 'And now?' });
      const sent = reader.model!.requests[0]!.messages.slice(1, -1);
      const condensed = condenseTurn(stored[5]!);
      const expected = estimateTokens(condensed) <= 10 ? [...condensed, ...stored[6]!, ...stored[7]!] : [...stored[6]!, ...stored[7]!];
      expect(sent).toEqual(expected);
      expect(historyViolations(sent)).toEqual([]);
    });
  });

  describe('approvals', () => {
    const pausedTurn = async (options: { store?: ConversationStore; script?: ScriptedStep[] } = {}) => {
      const gateway = testGateway();
      const setup = fixture([toolCallsReply([weather('w1'), cancel('c1', ['ORD7'])]), ...(options.script ?? [])], { yaml: APPROVALS, gateway, ...(options.store ? { store: options.store } : {}) });
      const conversationId = conversation();
      const paused = await setup.agent.ask({ conversationId, message: '查天气并取消 ORD7', requestId: 'ask-1' });
      return { ...setup, gateway, conversationId, paused };
    };

    it('runs the calls that need no approval, then pauses with the others pending', async () => {
      const { agent, gateway, conversationId, paused } = await pausedTurn();
      expect(paused).toMatchObject({
        turn: 1,
        stopReason: 'approval_required',
        rounds: 1,
        pendingApprovals: [{ toolCallId: 'c1', name: 'batchCancelOrdersByOrderNo', server: 'fake', arguments: { orderNos: ['ORD7'] } }],
      });
      expect(paused.toolCalls.map((call) => call.id)).toEqual(['w1']);
      expect(gateway.calls.map((call) => call.name)).toEqual(['getWeather']);
      const view = await agent.getConversation({ conversationId });
      expect(view.turns[0]).toMatchObject({ turn: 1, stopReason: 'approval_required', pendingApprovals: paused.pendingApprovals });
      expect(view.turns[0]!.completedAt).toBeUndefined();
    });

    it('runs an approved call with exactly its stored arguments and goes on within the same turn', async () => {
      const { agent, model, gateway, conversationId } = await pausedTurn({ script: [textReply('天气晴，ORD7 已取消')] });
      const result = await agent.decide({ conversationId, decisions: [{ toolCallId: 'c1', approved: true }], requestId: 'approve-1' });
      expect(result).toMatchObject({ turn: 1, stopReason: 'completed', rounds: 2, reply: '天气晴，ORD7 已取消' });
      expect(result.pendingApprovals).toBeUndefined();
      expect(result.toolCalls.map((call) => [call.id, call.ok])).toEqual([['w1', true], ['c1', true]]);
      expect(gateway.calls).toEqual([{ name: 'getWeather', args: { city: '上海' } }, { name: 'batchCancelOrdersByOrderNo', args: { orderNos: ['ORD7'] } }]);
      const sent = model!.requests[1]!.messages;
      expect(toolMessages(sent).map((message) => message.toolCallId)).toEqual(['w1', 'c1']);
      expect(historyViolations(sent)).toEqual([]);
      const view = await agent.getConversation({ conversationId });
      expect(view.turns).toHaveLength(1);
      expect(view.turns[0]).toMatchObject({ stopReason: 'completed' });
    });

    it('answers a declined call with the user’s reason, and runs nothing', async () => {
      const { agent, model, gateway, conversationId } = await pausedTurn({ script: [textReply('好的，不取消')] });
      const result = await agent.decide({ conversationId, decisions: [{ toolCallId: 'c1', approved: false, reason: '客户改主意了' }] });
      expect(result).toMatchObject({ stopReason: 'completed', reply: '好的，不取消' });
      expect(gateway.calls.map((call) => call.name)).toEqual(['getWeather']);
      const declined = toolMessages(model!.requests[1]!.messages).find((message) => message.toolCallId === 'c1');
      expect(declined?.content).toMatch(/the user declined this call \(reason: 客户改主意了\)/);
    });

    it('needs every pending call decided at once, and only those', async () => {
      const { agent, conversationId } = await pausedTurn();
      const missing = await rejection(agent.decide({ conversationId, decisions: [{ toolCallId: 'w1', approved: true }] }));
      expect(missing).toBeInstanceOf(ConflictError);
      expect(missing).toMatchObject({ code: 'approval_not_pending' });
      expect((missing as Error).message).toContain('w1');
      const twice = await rejection(agent.decide({ conversationId, decisions: [{ toolCallId: 'c1', approved: true }, { toolCallId: 'c1', approved: false }] }));
      expect(twice).toBeInstanceOf(InputError);
      expect(twice).toMatchObject({ code: 'invalid_decisions' });
      const none = await rejection(agent.decide({ conversationId, decisions: [] }));
      expect(none).toMatchObject({ code: 'invalid_decisions' });
    });

    it('names the calls left undecided', async () => {
      const gateway = testGateway();
      const setup = fixture([toolCallsReply([cancel('c1', ['A']), cancel('c2', ['B'])])], { yaml: APPROVALS, gateway });
      const conversationId = conversation();
      await setup.agent.ask({ conversationId, message: 'cancel A and B' });
      const error = await rejection(setup.agent.decide({ conversationId, decisions: [{ toolCallId: 'c1', approved: true }] }));
      expect(error).toMatchObject({ code: 'undecided_calls' });
      expect((error as Error).message).toContain('c2');
    });

    it('gives a retried decision the stored result, and a second decision 409', async () => {
      const { agent, model, gateway, conversationId } = await pausedTurn({ script: [textReply('done')] });
      const first = await agent.decide({ conversationId, decisions: [{ toolCallId: 'c1', approved: true }], requestId: 'approve-1' });
      const retry = await agent.decide({ conversationId, decisions: [{ toolCallId: 'c1', approved: true }], requestId: 'approve-1' });
      expect(retry).toEqual(first);
      const other = await rejection(agent.decide({ conversationId, decisions: [{ toolCallId: 'c1', approved: true }], requestId: 'approve-2' }));
      expect(other).toMatchObject({ code: 'approval_not_pending' });
      expect(model!.requests).toHaveLength(2);
      expect(gateway.calls.filter((call) => call.name === 'batchCancelOrdersByOrderNo')).toHaveLength(1);
    });

    it('gives a retry of the paused turn’s own question the paused result', async () => {
      const { agent, conversationId, paused } = await pausedTurn();
      expect(await agent.ask({ conversationId, message: '查天气并取消 ORD7', requestId: 'ask-1' })).toEqual(paused);
    });

    it('lets one of two racing decisions run the calls', async () => {
      const { agent, gateway, conversationId } = await pausedTurn({ script: [textReply('done'), textReply('done')] });
      const outcomes = await Promise.allSettled([
        agent.decide({ conversationId, decisions: [{ toolCallId: 'c1', approved: true }], requestId: 'a' }),
        agent.decide({ conversationId, decisions: [{ toolCallId: 'c1', approved: true }], requestId: 'b' }),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      expect(outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected').map((outcome) => (outcome.reason as ConflictError).code)).toEqual(['approval_not_pending']);
      expect(gateway.calls.filter((call) => call.name === 'batchCancelOrdersByOrderNo')).toHaveLength(1);
    });

    it('answers a concurrent duplicate of one decision 409 turn_in_progress, and its later retry the stored result', async () => {
      const slow = held(textReply('ORD7 已取消'));
      const { agent, gateway, conversationId } = await pausedTurn({ script: [slow.step] });
      const decision = { conversationId, decisions: [{ toolCallId: 'c1', approved: true }], requestId: 'approve-twice' };
      const outcomes = [agent.decide(decision), agent.decide(decision)].map((promise) => promise.then((result) => ({ result }), (error: unknown) => ({ error })));
      const refused = await Promise.race(outcomes);
      expect(refused).toMatchObject({ error: { code: 'turn_in_progress' } });
      expect((refused as { error: ConflictError }).error.retryAfterSeconds).toBeGreaterThan(0);
      slow.release();
      const finished = (await Promise.all(outcomes)).find((outcome) => 'result' in outcome) as { result: TurnResult };
      expect(finished.result).toMatchObject({ turn: 1, stopReason: 'completed', reply: 'ORD7 已取消' });
      expect(await agent.decide(decision)).toEqual(finished.result);
      expect(gateway.calls.filter((call) => call.name === 'batchCancelOrdersByOrderNo')).toHaveLength(1);
    });

    it('declines the pending calls when a new message comes instead, and answers the new message', async () => {
      const { agent, model, gateway, conversationId } = await pausedTurn({ script: [textReply('好的，先不取消。')] });
      const next = await agent.ask({ conversationId, message: '算了，先别取消' });
      expect(next).toMatchObject({ turn: 2, stopReason: 'completed' });
      expect(gateway.calls.map((call) => call.name)).toEqual(['getWeather']);
      const sent = model!.requests[1]!.messages;
      expect(historyViolations(sent)).toEqual([]);
      expect(toolMessages(sent).find((message) => message.toolCallId === 'c1')?.content).toMatch(/the user sent a new message instead of approving/);
      const view = await agent.getConversation({ conversationId });
      expect(view.turns.map((turn) => [turn.turn, turn.stopReason, turn.pendingApprovals])).toEqual([[1, 'approval_required', undefined], [2, 'completed', undefined]]);
      await expect(agent.decide({ conversationId, decisions: [{ toolCallId: 'c1', approved: true }] })).rejects.toMatchObject({ code: 'approval_not_pending' });
    });

    it('declines calls nobody decided within approvals.ttlSeconds', async () => {
      const gateway = testGateway();
      const { agent, model } = fixture([toolCallsReply([cancel('c1')]), textReply('ok')], { yaml: `${APPROVALS}\napprovals: { ttlSeconds: 60 }`, gateway });
      const conversationId = conversation();
      await agent.ask({ conversationId, message: 'cancel ORD1' });
      time = START + 61_000;
      const view = await agent.getConversation({ conversationId });
      expect(view.turns[0]!.pendingApprovals).toBeUndefined();
      const late = await rejection(agent.decide({ conversationId, decisions: [{ toolCallId: 'c1', approved: true }] }));
      expect(late).toMatchObject({ code: 'approval_expired' });
      expect(gateway.calls).toHaveLength(0);
      const next = await agent.ask({ conversationId, message: 'hello again' });
      expect(next.turn).toBe(2);
      expect(toolMessages(model!.requests[1]!.messages)[0]!.content).toMatch(/nobody approved this call within 60 s/);
    });

    it('keeps a paused turn across a new agent on the same store, as after a restart', async () => {
      const store = createStore();
      const { conversationId } = await pausedTurn({ store });
      const restarted = fixture([textReply('已取消')], { yaml: APPROVALS, store });
      const result = await restarted.agent.decide({ conversationId, decisions: [{ toolCallId: 'c1', approved: true }] });
      expect(result).toMatchObject({ turn: 1, stopReason: 'completed' });
      expect(restarted.gateway.calls).toEqual([{ name: 'batchCancelOrdersByOrderNo', args: { orderNos: ['ORD7'] } }]);
      expect((result as TurnResult).toolCalls.map((call) => call.id)).toEqual(['w1', 'c1']);
    });

    it('answers 409 when nothing waits for approval', async () => {
      const { agent } = fixture([textReply('hi')]);
      const conversationId = conversation();
      await expect(agent.decide({ conversationId, decisions: [{ toolCallId: 'x', approved: true }] })).rejects.toMatchObject({ code: 'conversation_not_found' });
      await agent.ask({ conversationId, message: 'hi' });
      await expect(agent.decide({ conversationId, decisions: [{ toolCallId: 'x', approved: true }] })).rejects.toMatchObject({ code: 'approval_not_pending' });
    });
  });
}
