import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, StoreError } from '../../lib/core/errors.ts';
import { condenseTurn, estimateTokens, historyViolations } from '../../lib/core/history.ts';
import type { HistoryMessage } from '../../lib/core/messages.ts';
import type { BeginTurnOutcome, ConversationKey, ConversationStore, TurnClaim } from '../../lib/core/ports.ts';
import type { TurnResult } from '../../lib/core/turn.ts';

/** Builds the store under test with the suite's clock (ms epoch). */
export type StoreFactory = (options: { now: () => number }) => ConversationStore;

const LEASE_MS = 60_000;
const LARGE_BUDGET = 1_000_000;

export const newConversation = (owner?: string): ConversationKey => ({ conversationId: `c-${randomUUID()}`, owner });

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

export async function begin(
  store: ConversationStore,
  key: ConversationKey,
  requestId: string,
  historyTokenBudget = LARGE_BUDGET,
): Promise<BeginTurnOutcome> {
  return store.beginTurn({ key, requestId, leaseMs: LEASE_MS, historyTokenBudget });
}

export async function claim(store: ConversationStore, key: ConversationKey, requestId: string, budget?: number) {
  const outcome = await begin(store, key, requestId, budget);
  if (outcome.kind !== 'claimed') throw new Error(`expected a claim for ${requestId}, got ${outcome.kind}`);
  return outcome;
}

/** Claims and completes one turn with sampleTurnMessages(turn number). */
export async function storeTurn(store: ConversationStore, key: ConversationKey, requestId: string = randomUUID()): Promise<TurnClaim> {
  const { claim: turnClaim } = await claim(store, key, requestId);
  await store.completeTurn(turnClaim, sampleTurnMessages(turnClaim.turn), sampleResult(key, turnClaim.turn));
  return turnClaim;
}

export async function expectConflict(promise: Promise<unknown>, code: ConflictError['code']): Promise<void> {
  const error = await promise.then(() => undefined, (rejection: unknown) => rejection);
  expect(error).toBeInstanceOf(ConflictError);
  expect(error).toMatchObject({ code });
}

export async function expectStoreError(promise: Promise<unknown>, code: string): Promise<StoreError> {
  const error = await promise.then(() => undefined, (rejection: unknown) => rejection);
  expect(error).toBeInstanceOf(StoreError);
  expect(error).toMatchObject({ code });
  return error as StoreError;
}

/** The ConversationStore behaviour every implementation must show. */
export function conversationStoreContract(createStore: StoreFactory): void {
  let time: number;
  let store: ConversationStore;

  beforeEach(() => {
    time = Date.UTC(2025, 0, 1, 12, 0, 0);
    store = createStore({ now: () => time });
  });

  describe('beginTurn', () => {
    it('claims turn 1 with an empty history for a new conversation', async () => {
      const key = newConversation();
      const outcome = await begin(store, key, 'request-1');
      expect(outcome).toEqual({
        kind: 'claimed',
        claim: { key, turn: 1, requestId: 'request-1', createdAt: new Date(time).toISOString() },
        history: [],
      });
    });

    it('puts a completed turn into the next turn’s history', async () => {
      const key = newConversation();
      await storeTurn(store, key);
      const outcome = await claim(store, key, 'request-2');
      expect(outcome.claim.turn).toBe(2);
      expect(outcome.history).toEqual(sampleTurnMessages(1));
    });

    it('refuses a second request with 409 conversation_busy while a turn is pending', async () => {
      const key = newConversation();
      await claim(store, key, 'request-1');
      await expectConflict(begin(store, key, 'request-2'), 'conversation_busy');
    });

    it('answers a retry of a pending request with 409 turn_in_progress', async () => {
      const key = newConversation();
      await claim(store, key, 'request-1');
      await expectConflict(begin(store, key, 'request-1'), 'turn_in_progress');
    });

    it('replays a completed request’s stored turn without claiming a new one', async () => {
      const key = newConversation();
      await storeTurn(store, key, 'request-1');
      const replay = await begin(store, key, 'request-1');
      expect(replay).toMatchObject({ kind: 'replay', turn: { turn: 1, requestId: 'request-1', result: sampleResult(key, 1) } });
      expect((await claim(store, key, 'request-2')).claim.turn).toBe(2);
    });

    it('lets exactly one of two racing requests claim the turn', async () => {
      const key = newConversation();
      const outcomes = await Promise.allSettled([begin(store, key, 'request-a'), begin(store, key, 'request-b')]);
      const claimed = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(claimed).toHaveLength(1);
      expect(claimed[0]?.value).toMatchObject({ kind: 'claimed', claim: { turn: 1 } });
      expect(refused).toHaveLength(1);
      expect(refused[0]?.reason).toBeInstanceOf(ConflictError);
      expect(refused[0]?.reason).toMatchObject({ code: 'conversation_busy' });
    });

    it('gives the next turn to a new request once a crashed turn’s lease expired, leaving it out of history', async () => {
      const key = newConversation();
      await storeTurn(store, key);
      await claim(store, key, 'crashed-request');
      time += LEASE_MS - 1;
      await expectConflict(begin(store, key, 'request-3'), 'conversation_busy');
      time += 2;
      const outcome = await claim(store, key, 'request-3');
      expect(outcome.claim.turn).toBe(3);
      expect(outcome.history).toEqual(sampleTurnMessages(1));
      await store.completeTurn(outcome.claim, sampleTurnMessages(3), sampleResult(key, 3));
      expect((await store.getConversation(key)).map((turn) => turn.turn)).toEqual([1, 3]);
    });

    it('lets the same request claim again after it released its claim', async () => {
      const key = newConversation();
      const first = await claim(store, key, 'request-1');
      await store.releaseTurn(first.claim);
      await store.releaseTurn(first.claim); // a second release finds nothing to give back, and says nothing
      const again = await claim(store, key, 'request-1');
      expect(again.claim.turn).toBe(1);
      expect(await store.getConversation(key)).toEqual([]);
    });

    it('loads only the newest whole turns within the token budget, oldest first', async () => {
      const key = newConversation();
      for (let turn = 1; turn <= 60; turn += 1) await storeTurn(store, key);
      const tokensOf = (turn: number) => estimateTokens(sampleTurnMessages(turn));

      for (const budget of [0, tokensOf(60) - 1, tokensOf(60), 500, 3_000, LARGE_BUDGET]) {
        // Prepare: the newest turns whose tokens add up to at most the budget
        const expectedTurns: number[] = [];
        let used = 0;
        for (let turn = 60; turn >= 1 && used + tokensOf(turn) <= budget; turn -= 1) {
          used += tokensOf(turn);
          expectedTurns.unshift(turn);
        }
        // ...preceded by the next older turn's question and answer, when those still fit.
        const next = 60 - expectedTurns.length;
        const condensed = next >= 1 ? condenseTurn(sampleTurnMessages(next)) : [];
        const prefix = next >= 1 && estimateTokens(condensed) <= budget - used ? condensed : [];
        // Act
        const outcome = await claim(store, key, `reader-${budget}`, budget);
        await store.releaseTurn(outcome.claim);
        // Assess
        expect(outcome.claim.turn).toBe(61);
        expect(outcome.history).toEqual([...prefix, ...expectedTurns.flatMap(sampleTurnMessages)]);
        expect(historyViolations(outcome.history)).toEqual([]);
      }
    });

    it('keeps the question and answer of a turn too large to load whole', async () => {
      const key = newConversation();
      await storeTurn(store, key);
      const huge: HistoryMessage[] = [
        { role: 'user', content: '读取日志' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'big', name: 'read_text_file', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'big', name: 'read_text_file', content: '日志'.repeat(5_000) },
        { role: 'assistant', content: '日志里有两个错误。', toolCalls: [] },
      ];
      const { claim: second } = await claim(store, key, 'huge-turn');
      await store.completeTurn(second, huge, sampleResult(key, 2, 'huge-turn'));
      const outcome = await claim(store, key, 'after-huge', 1_000);
      expect(outcome.history).toEqual([huge[0], huge[3]]);
      expect(historyViolations(outcome.history)).toEqual([]);
    });
  });

  describe('completeTurn', () => {
    it('fails with turn_claim_lost when the claim was released', async () => {
      const key = newConversation();
      const { claim: turnClaim } = await claim(store, key, 'request-1');
      await store.releaseTurn(turnClaim);
      await expectStoreError(store.completeTurn(turnClaim, sampleTurnMessages(1), sampleResult(key, 1)), 'turn_not_stored');
      expect(await store.getConversation(key)).toEqual([]);
    });

    it('fails with turn_claim_lost when the turn was already completed', async () => {
      const key = newConversation();
      const turnClaim = await storeTurn(store, key);
      await expectStoreError(store.completeTurn(turnClaim, [], sampleResult(key, 1, 'other')), 'turn_not_stored');
      expect((await store.getConversation(key))[0]?.messages).toEqual(sampleTurnMessages(1));
    });
  });

  describe('owners', () => {
    it('keeps conversations with the same id apart when their owners differ', async () => {
      const conversationId = `c-${randomUUID()}`;
      const owners = ['alice', 'bob', '-', 'al#ice', undefined];
      for (const owner of owners) {
        const key = { conversationId, owner };
        await storeTurn(store, key, `request-of-${owner}`);
      }
      for (const owner of owners) {
        const turns = await store.getConversation({ conversationId, owner });
        expect(turns.map((turn) => turn.requestId)).toEqual([`request-of-${owner}`]);
      }
    });
  });

  describe('getConversation', () => {
    it('returns every stored message of every completed turn, oldest first', async () => {
      const key = newConversation('owner-1');
      await storeTurn(store, key, 'request-1');
      time += 1_000;
      await storeTurn(store, key, 'request-2');
      await claim(store, key, 'request-3'); // pending: not a stored turn yet

      const turns = await store.getConversation(key);

      expect(turns).toEqual([1, 2].map((turn) => ({
        turn,
        requestId: `request-${turn}`,
        createdAt: new Date(Date.UTC(2025, 0, 1, 12, 0, turn - 1)).toISOString(),
        completedAt: new Date(Date.UTC(2025, 0, 1, 12, 0, turn - 1)).toISOString(),
        messages: sampleTurnMessages(turn),
        result: sampleResult(key, turn),
      })));
    });

    it('returns no turns for an unknown conversation', async () => {
      expect(await store.getConversation(newConversation())).toEqual([]);
    });
  });

  describe('deleteConversation', () => {
    it('deletes every turn, open claims included, and returns how many', async () => {
      const key = newConversation();
      await storeTurn(store, key);
      await storeTurn(store, key);
      const open = await claim(store, key, 'request-3');

      expect(await store.deleteConversation(key)).toBe(3);

      expect(await store.getConversation(key)).toEqual([]);
      await expectStoreError(store.completeTurn(open.claim, sampleTurnMessages(3), sampleResult(key, 3)), 'turn_not_stored');
      expect((await claim(store, key, 'request-4')).claim.turn).toBe(1);
    });

    it('returns 0 for an unknown conversation', async () => {
      expect(await store.deleteConversation(newConversation())).toBe(0);
    });
  });
}
