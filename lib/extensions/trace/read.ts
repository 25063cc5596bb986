import { InputError, NotFoundError } from '../../core/errors.ts';
import type { ConversationKey, ConversationStore } from '../../core/ports/conversation-store.ts';
import { decodeRanges, storedTraceOf, type StoredTrace } from './book.ts';
import { TRACE_STATE } from './extension.ts';
import { readTraceHistory } from './history.ts';
import { traceMessages } from './shape.ts';
import type { TraceMessage, TraceRound, TurnTraceView } from '../../core/turn-trace.ts';

/** Turn numbers are whole numbers from 1; the store counts them in a Number attribute. */
function checkTurnNumber(turn: unknown): asserts turn is number {
  if (typeof turn !== 'number' || !Number.isSafeInteger(turn) || turn < 1) {
    throw new InputError('invalid_turn', `A turn is a whole number from 1 (the "turn" of a turn result), not ${JSON.stringify(turn)}.`);
  }
}

/** One turn's trace, read with one Query of one item (a page of one turn, after the turn before). */
export async function readTurnTrace(store: ConversationStore, key: ConversationKey, turn: number): Promise<TurnTraceView> {
  checkTurnNumber(turn);
  const { records } = await store.readPage(key, { limit: 1, ...(turn > 1 ? { after: turn - 1 } : {}) });
  const record = records[0];
  if (!record || record.turn !== turn) {
    // Only on the way to a 404: which one it is.
    const exists = record !== undefined || (await store.readPage(key, { limit: 1 })).records.length > 0;
    if (!exists) throw new NotFoundError('conversation_not_found', `There is no conversation "${key.conversationId}". Start one with POST /conversations.`);
    throw new NotFoundError('turn_not_found', `Conversation "${key.conversationId}" has no turn ${turn}.`);
  }
  const stored = storedTraceOf(record.state()[TRACE_STATE], turn);
  if (!stored) {
    throw new NotFoundError(
      'trace_not_found',
      `Turn ${turn} of conversation "${key.conversationId}" has no trace: traces are off (trace.enabled in agent.yml), or were when it ran, or it has not called the model yet.`,
    );
  }
  const history = stored.history && (await readTraceHistory(store, key, turn, stored.history, stored.contents ?? 'full'));
  // The turn's own messages, stored in the same item and written with the trace (own-messages.ts).
  const own = stored.rounds.some((round) => round.request?.own) ? traceMessages(record.messages(), stored.contents ?? 'full') : undefined;
  return { conversationId: key.conversationId, ...expandTrace(stored, history, own) };
}

/**
 * The stored trace with every round's request written out in full: the turn's own messages put
 * back from its item, and the earlier turns' where they were sent, or, when they are no longer
 * stored, counted in historyUnavailable.
 */
export function expandTrace(stored: StoredTrace, history?: readonly TraceMessage[], own: readonly TraceMessage[] = []): Omit<TurnTraceView, 'conversationId'> {
  const rounds = stored.rounds.map(({ request, ...round }): TraceRound => {
    if (!request) return round;
    const pooled = decodeRanges(request.messages).map((position) => stored.messages[position]!);
    // At or after the history's place: putting them in first leaves that place as it was.
    const messages = request.own ? [...pooled.slice(0, request.own.at), ...own.slice(0, request.own.messages), ...pooled.slice(request.own.at)] : pooled;
    const tools = decodeRanges(request.tools).map((position) => stored.tools[position]!);
    if (request.history === undefined) return { ...round, request: { messages, tools } };
    if (!history) return { ...round, request: { messages, tools, historyUnavailable: stored.history?.messages ?? 0 } };
    return { ...round, request: { messages: [...messages.slice(0, request.history), ...history, ...messages.slice(request.history)], tools } };
  });
  return {
    turn: stored.turn,
    rounds,
    toolCalls: stored.toolCalls,
    ...(stored.trimmedCharacters ? { trimmedCharacters: stored.trimmedCharacters } : {}),
    ...(stored.omittedRequests ? { omittedRequests: stored.omittedRequests } : {}),
    ...(stored.omittedRounds ? { omittedRounds: stored.omittedRounds } : {}),
  };
}
