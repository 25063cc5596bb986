import { ConflictError } from '../../core/errors.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { ConversationKey, ConversationStore, TurnStatus } from '../../core/ports/conversation-store.ts';
import type { TurnProgress, TurnResult } from '../../core/turn.ts';
import { settleTurn, type TurnRules } from './open-turn.ts';
import { leaseHolds } from './turn-opening.ts';

/** One turn as stored now: what a client resuming the turn's stream is shown. */
export interface StoredTurn {
  turn: number;
  status: TurnStatus;
  /** The request that started it, then each that decided its approvals. */
  requestIds: string[];
  /** The question and everything the loop appended (so far, while it runs). */
  messages: HistoryMessage[];
  /** complete and paused: the turn result; running: its progress. */
  result: TurnResult | TurnProgress;
}

interface ReadStoredTurnInput {
  store: ConversationStore;
  key: ConversationKey;
  turn: number;
  now: number;
  /** For a running turn whose process died: it is completed (interrupted) under this claim. */
  claimId: string;
  rules: TurnRules;
}

/**
 * Reads one turn (one Query of two items), owner-scoped by its key. A running turn whose lease ran
 * out is completed as interrupted first, as the next request on the conversation would, so a
 * client following it is not left waiting for a turn nobody runs.
 */
export async function readStoredTurn(input: ReadStoredTurnInput): Promise<StoredTurn | undefined> {
  const { store, key, turn } = input;
  const { records } = await store.readPage(key, { limit: 1, after: turn - 1 });
  const record = records[0];
  if (!record || record.turn !== turn) return undefined;
  if (record.status === 'running' && !leaseHolds(record, input.now)) {
    try {
      const settled = await settleTurn(store, key, record, 'interrupted', input.claimId, new Date(input.now).toISOString(), input.rules);
      return { turn, status: 'complete', requestIds: record.requestIds, messages: settled.messages, result: settled.result };
    } catch (error) {
      // Another request completed it first: what it stored is read on the next look.
      if (!(error instanceof ConflictError)) throw error;
    }
  }
  return { turn, status: record.status, requestIds: record.requestIds, messages: record.messages(), result: record.result() };
}
