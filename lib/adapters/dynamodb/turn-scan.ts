import { ConflictError } from '../../core/errors.ts';
import { condenseTurn, estimateTokens, selectTurnsWithinBudget } from '../../core/history.ts';
import type { HistoryMessage } from '../../core/messages.ts';

/**
 * The decision behind `beginTurn`, kept apart from any database so the DynamoDB store and the
 * in-memory store share it: feed the conversation's turns newest first, then read the outcome.
 */

/** What the decision needs to know about one stored turn. */
export interface TurnSummary {
  turn: number;
  requestId: string;
  status: 'pending' | 'complete';
  /** ms epoch; only on pending turns. */
  leaseExpiresAt?: number;
  /** Estimated tokens of the turn's messages (complete turns). */
  tokens: number;
}

export type TurnScanResult<T> =
  | { kind: 'replay'; turn: T }
  /**
   * `history` holds whole complete turns within the budget, oldest first; `condensable` is the next
   * older turn, which did not fit whole, with the budget left for its condensed form.
   */
  | { kind: 'claim'; nextTurn: number; history: T[]; condensable?: { turn: T; budget: number } };

export interface TurnScan<T> {
  /**
   * Takes the next older turn. Throws ConflictError when the newest turn is pending and its lease
   * still holds: another request is running it (or this one is, when the request ids match).
   */
  add(turn: T): void;
  /** False once older turns can no longer change the outcome: the caller stops paging. */
  wantsMore(): boolean;
  result(): TurnScanResult<T>;
}

export interface TurnScanInput {
  requestId: string;
  historyTokenBudget: number;
  /** ms epoch */
  now: number;
}

export function startTurnScan<T extends TurnSummary>(input: TurnScanInput): TurnScan<T> {
  let newestTurn: number | undefined;
  let replay: T | undefined;
  let tokensRead = 0;
  const completeNewestFirst: T[] = [];

  const budgetExhausted = () => tokensRead > input.historyTokenBudget;

  return {
    add(turn) {
      if (newestTurn === undefined) {
        newestTurn = turn.turn;
        if (turn.status === 'pending' && (turn.leaseExpiresAt ?? 0) > input.now) throw busy(turn, input.requestId);
      }
      // A pending turn past its lease crashed: it is skipped and its partial work never enters history.
      if (turn.status !== 'complete') return;
      if (turn.requestId === input.requestId) replay ??= turn;
      if (!budgetExhausted()) {
        // The turn that crosses the budget is collected too; selectTurnsWithinBudget drops it.
        completeNewestFirst.push(turn);
        tokensRead += turn.tokens;
      }
    },
    wantsMore: () => replay === undefined && !budgetExhausted(),
    result() {
      if (replay) return { kind: 'replay', turn: replay };
      const history = selectTurnsWithinBudget(completeNewestFirst, input.historyTokenBudget);
      const overflow = completeNewestFirst[history.length];
      const used = history.reduce((sum, turn) => sum + turn.tokens, 0);
      return {
        kind: 'claim',
        nextTurn: (newestTurn ?? 0) + 1,
        history,
        ...(overflow ? { condensable: { turn: overflow, budget: input.historyTokenBudget - used } } : {}),
      };
    },
  };
}

function busy(turn: TurnSummary, requestId: string): ConflictError {
  if (turn.requestId === requestId) {
    return new ConflictError(
      'turn_in_progress',
      `Request ${requestId} is still running as turn ${turn.turn}; retry later to get its result.`,
    );
  }
  return new ConflictError(
    'conversation_busy',
    `Another request is running turn ${turn.turn} of this conversation; retry when it has finished.`,
  );
}

/**
 * The history messages of a claim: a condensed form of the turn that did not fit (its question and
 * final answer) when that still fits the budget left, then the whole turns, oldest first.
 */
export function historyMessages<T>(outcome: Extract<TurnScanResult<T>, { kind: 'claim' }>, messagesOf: (turn: T) => HistoryMessage[]): HistoryMessage[] {
  const whole = outcome.history.flatMap(messagesOf);
  if (!outcome.condensable) return whole;
  const condensed = condenseTurn(messagesOf(outcome.condensable.turn));
  return estimateTokens(condensed) <= outcome.condensable.budget ? [...condensed, ...whole] : whole;
}
