import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { TurnTakenError } from '../../lib/core/errors.ts';
import { estimateTokens } from '../../lib/core/history.ts';
import type { HistoryMessage } from '../../lib/core/messages.ts';
import type { ConversationKey, ConversationStore, TurnRecord, TurnWrite } from '../../lib/core/ports/conversation-store.ts';
import type { TurnResult } from '../../lib/core/turn.ts';

export const newConversation = (owner?: string): ConversationKey => ({ conversationId: `c-${randomUUID()}`, ...(owner === undefined ? {} : { owner }) });

/** One turn as the loop stores it: a question, a tool round, and an answer. */
export function sampleTurnMessages(index: number): HistoryMessage[] {
  const callId = `call_${index}`;
  return [
    { role: 'user', content: `Question ${index}: what is the weather in city ${index}?` },
    { role: 'assistant', content: null, toolCalls: [{ id: callId, name: 'getWeather', arguments: `{"city":"${index}"}` }] },
    { role: 'tool', toolCallId: callId, name: 'getWeather', content: `City ${index}: sunny, ${index % 30} degrees` },
    { role: 'assistant', content: `Answer ${index}: it is sunny.`, toolCalls: [] },
  ];
}

export function sampleResult(key: ConversationKey, turn: number, reply = `Answer ${turn}`): TurnResult {
  return {
    conversationId: key.conversationId,
    turn,
    reply,
    stopReason: 'completed',
    rounds: 2,
    toolCalls: [{ id: `call_${turn}`, name: 'getWeather', arguments: { city: String(turn) }, ok: true, durationMs: 12 }],
    usage: { promptTokens: 100, completionTokens: 20 },
  };
}

const CREATED_AT = '2025-01-01T12:00:00.000Z';

/** The first write of a turn: running, with its question. */
export function claimWrite(claimId: string, requestId: string, question = 'Question?', leaseExpiresAt = Date.UTC(2025, 0, 1, 12, 5)): TurnWrite {
  return {
    status: 'running',
    claimId,
    requestIds: [requestId],
    createdAt: CREATED_AT,
    leaseExpiresAt,
    messages: [{ role: 'user', content: question }],
    result: { rounds: 0, toolCalls: [], usage: { promptTokens: 0, completionTokens: 0 } },
  };
}

export function completeWrite(key: ConversationKey, turn: number, claimId: string, requestId: string): TurnWrite {
  return {
    status: 'complete',
    claimId,
    requestIds: [requestId],
    createdAt: CREATED_AT,
    completedAt: '2025-01-01T12:00:05.000Z',
    messages: sampleTurnMessages(turn),
    result: sampleResult(key, turn),
  };
}

/** Writes turn `turn` complete, as a claim then its completion. */
export async function storeTurn(store: ConversationStore, key: ConversationKey, turn: number, requestId = `request-${turn}`): Promise<void> {
  const claimId = randomUUID();
  await store.create(key, turn, claimWrite(claimId, requestId));
  await store.update(key, turn, { claimId, status: 'running' }, completeWrite(key, turn, claimId, requestId));
}

/** The plain fields of a record, and its decoded parts, for comparison. */
export function recordFields(record: TurnRecord | undefined) {
  if (!record) return undefined;
  const { messages, result, state, ...fields } = record;
  return { ...fields, messages: messages(), result: result(), state: state() };
}

async function takenError(promise: Promise<unknown>): Promise<TurnTakenError> {
  const error = await promise.then(() => undefined, (rejection: unknown) => rejection);
  expect(error).toBeInstanceOf(TurnTakenError);
  return error as TurnTakenError;
}

const everything = () => true;

/**
 * The ConversationStore behaviour every implementation must show: conditional writes that hold,
 * records that read back as written, newest first.
 */
export function conversationStoreContract(createStore: () => ConversationStore): void {
  let store: ConversationStore;

  beforeEach(() => {
    store = createStore();
  });

  describe('create', () => {
    it('writes a running turn that reads back as written', async () => {
      const key = newConversation();
      const write = claimWrite('claim-1', 'request-1', 'What is the weather in Shanghai?');
      await store.create(key, 1, write);
      const [record] = await store.readRecent(key, everything);
      expect(recordFields(record)).toEqual({
        turn: 1,
        requestIds: ['request-1'],
        claimId: 'claim-1',
        status: 'running',
        createdAt: CREATED_AT,
        leaseExpiresAt: write.leaseExpiresAt,
        tokens: estimateTokens(write.messages),
        messages: write.messages,
        result: write.result,
        state: {},
      });
    });

    it('keeps the conversation’s state with the turn', async () => {
      const key = newConversation();
      const state = { todos: { items: [{ content: 'Cancel ORD1', status: 'in_progress' }] }, summary: { text: '总结', throughTurn: 3 } };
      await store.create(key, 1, { ...claimWrite('claim-1', 'request-1'), state });
      expect((await store.readAll(key))[0]!.state()).toEqual(state);
    });

    it('refuses a second create of the same turn, saying who holds it', async () => {
      const key = newConversation();
      await store.create(key, 1, claimWrite('claim-1', 'request-1'));
      const error = await takenError(store.create(key, 1, claimWrite('claim-2', 'request-2')));
      expect(error.current).toMatchObject({ requestIds: ['request-1'], claimId: 'claim-1', status: 'running' });
      expect((await store.readAll(key)).map((record) => record.claimId)).toEqual(['claim-1']);
    });

    it('lets exactly one of two racing creates through', async () => {
      const key = newConversation();
      const outcomes = await Promise.allSettled([store.create(key, 1, claimWrite('claim-a', 'request-a')), store.create(key, 1, claimWrite('claim-b', 'request-b'))]);
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(refused).toHaveLength(1);
      expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(TurnTakenError);
    });
  });

  describe('update', () => {
    it('replaces the turn when it is held as expected, dropping what the new status does not have', async () => {
      const key = newConversation();
      await store.create(key, 1, claimWrite('claim-1', 'request-1'));
      await store.update(key, 1, { claimId: 'claim-1', status: 'running' }, completeWrite(key, 1, 'claim-1', 'request-1'));
      const [record] = await store.readAll(key);
      expect(recordFields(record)).toEqual({
        turn: 1,
        requestIds: ['request-1'],
        claimId: 'claim-1',
        status: 'complete',
        createdAt: CREATED_AT,
        completedAt: '2025-01-01T12:00:05.000Z',
        tokens: estimateTokens(sampleTurnMessages(1)),
        messages: sampleTurnMessages(1),
        result: sampleResult(key, 1),
        state: {},
      });
    });

    it('keeps a paused turn’s approval expiry and pending calls, and lets another claim take it over', async () => {
      const key = newConversation();
      await store.create(key, 1, claimWrite('claim-1', 'request-1'));
      const paused: TurnWrite = {
        status: 'paused',
        claimId: 'claim-1',
        requestIds: ['request-1'],
        createdAt: CREATED_AT,
        approvalExpiresAt: Date.UTC(2025, 0, 2),
        messages: sampleTurnMessages(1).slice(0, 2),
        result: { ...sampleResult(key, 1), stopReason: 'approval_required', pendingApprovals: [{ toolCallId: 'call_1', name: 'getWeather', server: 'demo', arguments: { city: '1' } }] },
      };
      await store.update(key, 1, { claimId: 'claim-1', status: 'running' }, paused);
      expect(recordFields((await store.readRecent(key, everything))[0])).toMatchObject({ status: 'paused', approvalExpiresAt: paused.approvalExpiresAt, result: paused.result, messages: paused.messages });

      const resumed = { ...claimWrite('claim-2', 'request-1'), requestIds: ['request-1', 'approval-1'], messages: paused.messages };
      await store.update(key, 1, { claimId: 'claim-1', status: 'paused' }, resumed);
      const [record] = await store.readAll(key);
      expect(record).toMatchObject({ status: 'running', claimId: 'claim-2', requestIds: ['request-1', 'approval-1'] });
      expect(record?.approvalExpiresAt).toBeUndefined();
    });

    it.each([
      ['another claim', { claimId: 'claim-2', status: 'running' as const }],
      ['another status', { claimId: 'claim-1', status: 'paused' as const }],
    ])('refuses an update that expects %s, saying what is there', async (_, expected) => {
      const key = newConversation();
      await store.create(key, 1, claimWrite('claim-1', 'request-1'));
      const error = await takenError(store.update(key, 1, expected, completeWrite(key, 1, expected.claimId, 'request-1')));
      expect(error.current).toMatchObject({ claimId: 'claim-1', status: 'running' });
      expect((await store.readAll(key))[0]?.status).toBe('running');
    });

    it('refuses an update of a turn that is gone', async () => {
      const key = newConversation();
      const error = await takenError(store.update(key, 1, { claimId: 'claim-1', status: 'running' }, completeWrite(key, 1, 'claim-1', 'request-1')));
      expect(error.current).toBeUndefined();
      expect(await store.readAll(key)).toEqual([]);
    });
  });

  describe('renewLease', () => {
    it('moves a running turn’s lease on, and nothing else', async () => {
      const key = newConversation();
      const write = claimWrite('claim-1', 'request-1');
      await store.create(key, 1, write);
      const later = write.leaseExpiresAt! + 30_000;
      await store.renewLease(key, 1, { claimId: 'claim-1', status: 'running' }, later);
      const [record] = await store.readAll(key);
      expect(recordFields(record)).toEqual({ ...recordFields((await createdAlone(write))[0]), leaseExpiresAt: later });
    });

    it('never moves a lease back: a renewal delayed behind a later one changes nothing', async () => {
      const key = newConversation();
      const write = claimWrite('claim-1', 'request-1');
      await store.create(key, 1, write);
      await store.renewLease(key, 1, { claimId: 'claim-1', status: 'running' }, write.leaseExpiresAt! + 60_000);
      await store.renewLease(key, 1, { claimId: 'claim-1', status: 'running' }, write.leaseExpiresAt! + 30_000);
      expect((await store.readAll(key))[0]?.leaseExpiresAt).toBe(write.leaseExpiresAt! + 60_000);
    });

    it.each([
      ['held by another claim', { claimId: 'claim-2', status: 'running' as const }],
      ['paused or complete', { claimId: 'claim-1', status: 'paused' as const }],
    ])('refuses a turn %s, saying what is there', async (_, expected) => {
      const key = newConversation();
      const write = claimWrite('claim-1', 'request-1');
      await store.create(key, 1, write);
      const error = await takenError(store.renewLease(key, 1, expected, write.leaseExpiresAt! + 30_000));
      expect(error.current).toMatchObject({ claimId: 'claim-1', status: 'running' });
      expect((await store.readAll(key))[0]?.leaseExpiresAt).toBe(write.leaseExpiresAt);
    });

    /** The same write, in a conversation of its own: what the renewed turn reads as, but for its lease. */
    async function createdAlone(write: TurnWrite) {
      const alone = newConversation();
      await store.create(alone, 1, write);
      return store.readAll(alone);
    }
  });

  describe('remove', () => {
    it('deletes the turn only when it is held as expected', async () => {
      const key = newConversation();
      await store.create(key, 1, claimWrite('claim-1', 'request-1'));
      await store.remove(key, 1, { claimId: 'claim-2', status: 'running' });
      await store.remove(key, 1, { claimId: 'claim-1', status: 'paused' });
      expect(await store.readAll(key)).toHaveLength(1);
      await store.remove(key, 1, { claimId: 'claim-1', status: 'running' });
      await store.remove(key, 1, { claimId: 'claim-1', status: 'running' }); // gone already: nothing to do
      expect(await store.readAll(key)).toEqual([]);
    });
  });

  describe('reading', () => {
    it('reads the newest turns first, and all turns oldest first', async () => {
      const key = newConversation();
      for (let turn = 1; turn <= 4; turn += 1) await storeTurn(store, key, turn);
      expect((await store.readRecent(key, everything)).map((record) => record.turn)).toEqual([4, 3, 2, 1]);
      expect((await store.readAll(key)).map((record) => record.turn)).toEqual([1, 2, 3, 4]);
      const firstPage = await store.readRecent(key, () => false);
      expect(firstPage[0]?.turn).toBe(4);
    });

    it('hands out copies: changing what was read changes nothing stored', async () => {
      const key = newConversation();
      await storeTurn(store, key, 1);
      const [record] = await store.readAll(key);
      record!.messages().push({ role: 'user', content: 'injected' });
      (record!.result() as TurnResult).reply = 'changed';
      const [again] = await store.readAll(key);
      expect(again!.messages()).toEqual(sampleTurnMessages(1));
      expect((again!.result() as TurnResult).reply).toBe('Answer 1');
    });

    it('keeps what was written: changing it afterwards changes nothing stored', async () => {
      const key = newConversation();
      const write = claimWrite('claim-1', 'request-1', 'What is the weather in Shanghai?');
      const state = { todos: { items: [{ content: 'Cancel ORD1', status: 'in_progress' }] } };
      await store.create(key, 1, { ...write, state });
      // The loop goes on appending to its draft's messages and changing its progress after each record.
      write.messages.push({ role: 'user', content: 'injected' });
      (write.messages[0] as { content: string }).content = 'changed';
      write.result.rounds = 99;
      write.requestIds.push('request-2');
      state.todos.items[0]!.status = 'completed';
      const [record] = await store.readAll(key);
      expect(recordFields(record)).toMatchObject({
        requestIds: ['request-1'],
        messages: [{ role: 'user', content: 'What is the weather in Shanghai?' }],
        result: claimWrite('claim-1', 'request-1').result,
        state: { todos: { items: [{ content: 'Cancel ORD1', status: 'in_progress' }] } },
      });
    });

    it('reads nothing for an unknown conversation', async () => {
      expect(await store.readRecent(newConversation(), everything)).toEqual([]);
      expect(await store.readAll(newConversation())).toEqual([]);
    });

    it('keeps conversations with the same id apart when their owners differ', async () => {
      const conversationId = `c-${randomUUID()}`;
      const owners = ['alice', 'bob', '-', 'al#ice', undefined];
      for (const owner of owners) await storeTurn(store, { conversationId, ...(owner === undefined ? {} : { owner }) }, 1, `request-of-${owner}`);
      for (const owner of owners) {
        const records = await store.readAll({ conversationId, ...(owner === undefined ? {} : { owner }) });
        expect(records.map((record) => record.requestIds)).toEqual([[`request-of-${owner}`]]);
      }
    });
  });

  describe('readPage', () => {
    const turnsOf = (page: { records: TurnRecord[] }) => page.records.map((record) => record.turn);

    it('reads a conversation a page at a time, oldest first, saying whether turns remain', async () => {
      const key = newConversation();
      for (let turn = 1; turn <= 5; turn += 1) await storeTurn(store, key, turn);

      const first = await store.readPage(key, { limit: 2 });
      const second = await store.readPage(key, { limit: 2, after: 2 });
      const last = await store.readPage(key, { limit: 2, after: 4 });

      expect([turnsOf(first), first.more]).toEqual([[1, 2], true]);
      expect([turnsOf(second), second.more]).toEqual([[3, 4], true]);
      expect([turnsOf(last), last.more]).toEqual([[5], false]);
      expect(recordFields(second.records[0])).toEqual(recordFields((await store.readAll(key))[2]));
    });

    it('says no turns remain when the page ends exactly at the last turn', async () => {
      const key = newConversation();
      for (let turn = 1; turn <= 4; turn += 1) await storeTurn(store, key, turn);
      const page = await store.readPage(key, { limit: 2, after: 2 });
      expect([turnsOf(page), page.more]).toEqual([[3, 4], false]);
      expect(await store.readPage(key, { limit: 2, after: 4 })).toEqual({ records: [], more: false });
    });

    it('includes running turns (what to show of them is the agent\'s call) and reads nothing of another owner', async () => {
      const key = newConversation('alice');
      await storeTurn(store, key, 1);
      await store.create(key, 2, claimWrite('claim-2', 'request-2'));
      expect(turnsOf(await store.readPage(key, { limit: 10 }))).toEqual([1, 2]);
      expect(await store.readPage({ ...key, owner: 'bob' }, { limit: 10 })).toEqual({ records: [], more: false });
      expect(await store.readPage({ conversationId: key.conversationId }, { limit: 10 })).toEqual({ records: [], more: false });
    });
  });

  describe('deleteConversation', () => {
    it('deletes every turn, running ones included, and returns how many', async () => {
      const key = newConversation();
      await storeTurn(store, key, 1);
      await storeTurn(store, key, 2);
      await store.create(key, 3, claimWrite('claim-3', 'request-3'));
      expect(await store.deleteConversation(key)).toBe(3);
      expect(await store.readAll(key)).toEqual([]);
      await takenError(store.update(key, 3, { claimId: 'claim-3', status: 'running' }, completeWrite(key, 3, 'claim-3', 'request-3')));
    });

    it('returns 0 for an unknown conversation', async () => {
      expect(await store.deleteConversation(newConversation())).toBe(0);
    });
  });
}
