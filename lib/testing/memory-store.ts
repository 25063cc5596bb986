import { StoreError } from '../core/errors.ts';
import { estimateTokens } from '../core/history.ts';
import type { HistoryMessage } from '../core/messages.ts';
import type { BeginTurnOutcome, ConversationKey, ConversationStore, StoredTurn, TurnClaim } from '../core/ports.ts';
import type { TurnResult } from '../core/turn.ts';
import { conversationPartitionKey } from '../adapters/dynamodb/keys.ts';
import { historyMessages, startTurnScan, type TurnSummary } from '../adapters/dynamodb/turn-scan.ts';

interface MemoryTurn extends TurnSummary {
  createdAt: string;
  completedAt?: string;
  messages?: HistoryMessage[];
  result?: TurnResult;
}

/**
 * A ConversationStore in memory, for unit tests and quick local runs. It decides conflicts, lease
 * expiry, replays and the history budget with the same helpers as the DynamoDB store, keyed the
 * same way. Values are copied in and out, as a database would. It has no item size limit, and its
 * replay check sees every turn of the conversation (DynamoDB's sees the pages its Query read).
 */
export function createMemoryConversationStore(options: { now?: () => number } = {}): ConversationStore {
  const now = options.now ?? Date.now;
  /** partition key → turn number → turn */
  const conversations = new Map<string, Map<number, MemoryTurn>>();
  const turnsOf = (key: ConversationKey) => conversations.get(conversationPartitionKey(key)) ?? new Map<number, MemoryTurn>();
  const newestFirst = (key: ConversationKey) => [...turnsOf(key).values()].sort((a, b) => b.turn - a.turn);

  // Each method body runs without awaiting before it changes state, so concurrent calls are
  // serialised exactly as DynamoDB's conditional writes serialise them.
  return {
    async beginTurn(input): Promise<BeginTurnOutcome> {
      const startedAt = now();
      const scan = startTurnScan<MemoryTurn>({ ...input, now: startedAt });
      for (const turn of newestFirst(input.key)) scan.add(turn);
      const outcome = scan.result();
      if (outcome.kind === 'replay') return { kind: 'replay', turn: toStoredTurn(outcome.turn) };

      const claim: TurnClaim = {
        key: input.key,
        turn: outcome.nextTurn,
        requestId: input.requestId,
        createdAt: new Date(startedAt).toISOString(),
      };
      const partitionKey = conversationPartitionKey(input.key);
      const turns = conversations.get(partitionKey) ?? new Map<number, MemoryTurn>();
      conversations.set(partitionKey, turns);
      turns.set(claim.turn, {
        turn: claim.turn,
        requestId: claim.requestId,
        status: 'pending',
        leaseExpiresAt: startedAt + input.leaseMs,
        tokens: 0,
        createdAt: claim.createdAt,
      });
      return { kind: 'claimed', claim, history: structuredClone(historyMessages(outcome, (turn) => turn.messages ?? [])) };
    },

    async completeTurn(claim, messages, result) {
      const turn = turnsOf(claim.key).get(claim.turn);
      if (turn?.requestId !== claim.requestId || turn.status !== 'pending') {
        throw new StoreError(
          'turn_not_stored',
          `Turn ${claim.turn} is no longer claimed by request ${claim.requestId} (released, completed or deleted); it was not stored.`,
        );
      }
      turn.status = 'complete';
      delete turn.leaseExpiresAt;
      turn.messages = structuredClone(messages);
      turn.result = structuredClone(result);
      turn.tokens = estimateTokens(messages);
      turn.completedAt = new Date(now()).toISOString();
    },

    async releaseTurn(claim) {
      const turns = turnsOf(claim.key);
      const turn = turns.get(claim.turn);
      if (turn?.requestId === claim.requestId && turn.status === 'pending') turns.delete(claim.turn);
    },

    async getConversation(key) {
      return newestFirst(key)
        .reverse()
        .filter((turn) => turn.status === 'complete')
        .map(toStoredTurn);
    },

    async deleteConversation(key) {
      const count = turnsOf(key).size;
      conversations.delete(conversationPartitionKey(key));
      return count;
    },
  };
}

function toStoredTurn(turn: MemoryTurn): StoredTurn {
  return structuredClone({
    turn: turn.turn,
    requestId: turn.requestId,
    createdAt: turn.createdAt,
    completedAt: turn.completedAt ?? turn.createdAt,
    messages: turn.messages ?? [],
    result: turn.result as TurnResult,
  });
}
