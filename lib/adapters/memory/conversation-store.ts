import { TurnTakenError } from '../../core/errors.ts';
import { estimateTokens } from '../../core/history.ts';
import { copyJson, copyState } from '../../core/state-copy.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { TurnProgress, TurnResult } from '../../core/turn.ts';
import type { ConversationKey, ConversationStore, TurnExpectation, TurnRecord, TurnWrite } from '../../core/ports/conversation-store.ts';

/**
 * A stored turn. Its messages are kept as the writer's own objects where those are frozen (the
 * agent freezes a turn's messages as it records them: lib/agent/turn/held-turn.ts), and as copies
 * where not. A turn's messages only ever grow, and each round's record holds all of them so far:
 * serializing them again at every record made the store's writes the largest single cost of an
 * in-process turn (13% of its CPU, 6% after). A frozen message cannot change, so sharing it is as
 * good as a copy (as copyState shares a frozen state value). A reader gets copies (TurnRecord's
 * messages()). The result is kept as its JSON text, decoded when read.
 */
interface MemoryTurn extends Omit<TurnWrite, 'messages' | 'result'> {
  turn: number;
  messages: readonly HistoryMessage[];
  /** Counted when first read: most records are never read. */
  tokens?: number;
  result: string;
}

/**
 * A ConversationStore in memory: for embedding code, demos, benchmarks and tests. It keeps the same
 * conditions as the DynamoDB store (create only once, update and remove only as expected), and
 * copies values in and out, as a database would (what is frozen is shared instead: MemoryTurn). It
 * has no item size limit and never loses a response, and everything it keeps is gone when the
 * process ends.
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
      messages: keptMessages(messages),
      result: JSON.stringify(result),
      ...(state === undefined ? {} : { state: copyState(state) }),
      turn,
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
    tokens: (turn.tokens ??= estimateTokens(turn.messages)),
    messages: () => copyJson(turn.messages) as HistoryMessage[],
    result: () => JSON.parse(turn.result) as TurnResult | TurnProgress,
    state: () => copyJson(turn.state ?? {}),
  };
  if (turn.requestDigests !== undefined) record.requestDigests = { ...turn.requestDigests };
  if (turn.completedAt !== undefined) record.completedAt = turn.completedAt;
  if (turn.leaseExpiresAt !== undefined) record.leaseExpiresAt = turn.leaseExpiresAt;
  if (turn.approvalExpiresAt !== undefined) record.approvalExpiresAt = turn.approvalExpiresAt;
  return record;
}

/** The write's messages in an array of the store's own: each frozen one itself, any other a copy. */
function keptMessages(messages: readonly HistoryMessage[]): readonly HistoryMessage[] {
  const kept = new Array<HistoryMessage>(messages.length);
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    kept[index] = Object.isFrozen(message) ? message : copyJson(message);
  }
  return kept;
}
