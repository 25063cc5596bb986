import { closeOpenRound, unansweredCalls } from '../core/history.ts';
import type { HistoryMessage } from '../core/messages.ts';
import type { TurnRecord } from '../core/ports.ts';
import type { ToolCallRecord, TurnResult } from '../core/turn.ts';
import { fallbackReply } from './fallback-reply.ts';
import { toolText } from './tool-messages.ts';
import { shownArguments } from './tool-plan.ts';

/** A turn made whole from its record: what is stored as it completes, and what its result says. */
export interface SettledTurn {
  messages: HistoryMessage[];
  result: TurnResult;
}

/**
 * A running turn whose process died (its lease ran out): completed from its record. Results it
 * recorded are kept; every call without one is answered "outcome unknown", so the model knows an
 * order may already be cancelled and checks before repeating it.
 */
export function settleInterrupted(record: TurnRecord, conversationId: string, maxRounds: number): SettledTurn {
  const progress = record.result();
  const { messages, unanswered } = closeWith(record.messages(), toolText.outcomeUnknown());
  return {
    messages,
    result: {
      conversationId,
      turn: record.turn,
      reply: fallbackReply('interrupted', messages, { maxRounds }),
      stopReason: 'interrupted',
      rounds: progress.rounds,
      toolCalls: [...progress.toolCalls, ...unanswered],
      usage: progress.usage,
    },
  };
}

/**
 * A paused turn whose calls will never be approved: a new message came instead, or the approval
 * expired. Each waiting call is answered as declined, saying why; the turn stays `approval_required`
 * (that is why it stopped), with nothing left pending.
 */
export function settleDeclined(record: TurnRecord, conversationId: string, text: string, why: string): SettledTurn {
  const paused = record.result();
  const { messages, unanswered } = closeWith(record.messages(), text);
  const { pendingApprovals: _decided, ...rest } = 'stopReason' in paused ? paused : { ...paused, pendingApprovals: undefined };
  return {
    messages,
    result: {
      ...rest,
      conversationId,
      turn: record.turn,
      reply: `${why} ${unanswered.map((call) => `${call.name} (${call.id})`).join(', ')} did not run.`,
      stopReason: 'approval_required',
      toolCalls: [...paused.toolCalls, ...unanswered],
    },
  };
}

function closeWith(messages: HistoryMessage[], text: string): { messages: HistoryMessage[]; unanswered: ToolCallRecord[] } {
  const unanswered = unansweredCalls(messages).map((call) => ({ id: call.id, name: call.name, arguments: shownArguments(call.arguments), ok: false, durationMs: 0 }));
  return { messages: closeOpenRound(messages, () => text), unanswered };
}
