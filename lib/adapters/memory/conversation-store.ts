import { TurnTakenError } from '../../core/errors.ts';
import { estimateTokens } from '../../core/history.ts';
import { copyJson, copyState } from '../../core/state-copy.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { TurnProgress, TurnResult } from '../../core/turn.ts';
import type { ConversationKey, ConversationStore, TurnExpectation, TurnRecord, TurnWrite } from '../../core/ports/conversation-store.ts';

/**
 * A stored turn: its messages and result kept as their JSON text, as a database keeps them, and
 * decoded only when read (TurnRecord's messages() and result()). Serializing is one call into the
 * engine, where copying them object by object took 8% of an in-process turn's CPU, with the
 * garbage of every copy: each round's record holds all the turn's messages so far, and most records
 * are never read. The messages of a turn that is read (an earlier turn, as history) are decoded once
 * and kept: each read copies them, which is quicker than decoding them again.
 */
interface MemoryTurn extends Omit<TurnWrite, 'messages' | 'result'> {
  turn: number;
  tokens: number;
  messages: string;
  decodedMessages?: HistoryMessage[];
  result: string;
}

/**
 * A ConversationStore in memory: for embedding code, demos, benchmarks and tests. It keeps the same
 * conditions as the DynamoDB store (create only once, update and remove only as expected), and
 * copies values in and out, as a database would. It has no item size limit and never loses a
 * response, and everything it keeps is gone when the process ends.
 */
export function createMemoryConversationStore(): ConversationStore {
  /** conversation → turn number → turn */
  const conversations = new Map<string, Map<number, MemoryTurn>>();
  const keyOf = (key: ConversationKey) => JSON.stringify([key.owner ?? null, key.conversationId]);
  const turnsOf = (key: ConversationKey) => conversations.get(keyOf(key)) ?? new Map<number, MemoryTurn>();
  const sorted = (key: ConversationKey) => [...turnsOf(key).values()].sort((a, b) => a.turn - b.turn);

  const holds = (turn: MemoryTurn | undefined, expected: TurnExpectation) =>
    turn !== undefined && turn.claimId === expected.claimId && turn.status === expected.status;
  const current = (turn: MemoryTurn | undefined) =>
    turn && { requestIds: [...turn.requestIds], claimId: turn.claimId, status: turn.status, ...(turn.leaseExpiresAt === undefined ? {} : { leaseExpiresAt: turn.leaseExpiresAt }) };
  const stored = (turn: number, write: TurnWrite): MemoryTurn => {
    const { state, messages, result, ...rest } = write;
    return {
      ...copyJson(rest),
      messages: JSON.stringify(messages),
      result: JSON.stringify(result),
      ...(state === undefined ? {} : { state: copyState(state) }),
      turn,
      tokens: estimateTokens(messages),
    };
  };

  // Each method body changes state before its first await, so concurrent calls are serialised
  // exactly as DynamoDB's conditional writes serialise them.
  return {
    async readRecent(key, wantsMore) {
      const records: TurnRecord[] = [];
      for (const turn of sorted(key).reverse()) {
        records.push(toRecord(turn));
        if (!wantsMore(records)) break;
      }
      return records;
    },

    async readAll(key) {
      return sorted(key).map(toRecord);
    },

    async readPage(key, page) {
      const following = sorted(key).filter((turn) => page.after === undefined || turn.turn > page.after);
      return { records: following.slice(0, page.limit).map(toRecord), more: following.length > page.limit };
    },

    async create(key, turn, write) {
      const turns = turnsOf(key);
      if (turns.has(turn)) throw new TurnTakenError(`Turn ${turn} was claimed by another request first.`, current(turns.get(turn)));
      turns.set(turn, stored(turn, write));
      conversations.set(keyOf(key), turns);
    },

    async update(key, turn, expected, write) {
      const turns = turnsOf(key);
      const existing = turns.get(turn);
      if (!holds(existing, expected)) throw new TurnTakenError(`Turn ${turn} is no longer held by this request.`, current(existing));
      turns.set(turn, stored(turn, write));
    },

    async renewLease(key, turn, expected, leaseExpiresAt) {
      const existing = turnsOf(key).get(turn);
      if (!holds(existing, expected)) throw new TurnTakenError(`Turn ${turn} is no longer held by this request.`, current(existing));
      existing!.leaseExpiresAt = Math.max(existing!.leaseExpiresAt ?? 0, leaseExpiresAt);
    },

    async remove(key, turn, expected) {
      const turns = turnsOf(key);
      if (holds(turns.get(turn), expected)) turns.delete(turn);
    },

    async deleteConversation(key) {
      const count = turnsOf(key).size;
      conversations.delete(keyOf(key));
      return count;
    },
  };
}

function toRecord(turn: MemoryTurn): TurnRecord {
  const record: TurnRecord = {
    turn: turn.turn,
    requestIds: [...turn.requestIds],
    claimId: turn.claimId,
    status: turn.status,
    createdAt: turn.createdAt,
    tokens: turn.tokens,
    messages: () => copyJson((turn.decodedMessages ??= JSON.parse(turn.messages) as HistoryMessage[])),
    result: () => JSON.parse(turn.result) as TurnResult | TurnProgress,
    state: () => copyJson(turn.state ?? {}),
  };
  if (turn.requestDigests !== undefined) record.requestDigests = { ...turn.requestDigests };
  if (turn.completedAt !== undefined) record.completedAt = turn.completedAt;
  if (turn.leaseExpiresAt !== undefined) record.leaseExpiresAt = turn.leaseExpiresAt;
  if (turn.approvalExpiresAt !== undefined) record.approvalExpiresAt = turn.approvalExpiresAt;
  return record;
}
