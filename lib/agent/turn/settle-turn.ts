import { closeOpenRound, unansweredCalls } from '../../core/history.ts';
import type { HistoryMessage, ToolCall } from '../../core/messages.ts';
import type { TurnRecord } from '../../core/ports/conversation-store.ts';
import type { ToolCallRecord, TurnResult } from '../../core/turn.ts';
import { fallbackReply } from './fallback-reply.ts';
import { toolText } from '../loop/tool-messages.ts';
import { shownArguments } from '../loop/tool-plan.ts';

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
  const { messages, unanswered } = closeWith(record.messages(), () => toolText.outcomeUnknown());
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

/** What a waiting call waited for, which decides what the model is told when it never comes. */
type WaitedFor = 'approval' | 'answer' | 'sampling';

/**
 * A paused turn whose calls will never be decided: a new message came instead, or the wait
 * expired. Each waiting call is answered with `text` for what it waited for (declined, or a
 * question nobody answered), saying why; the turn keeps its stop reason (`approval_required` or
 * `input_required`: that is why it stopped), with nothing left pending.
 */
export function settleDeclined(record: TurnRecord, conversationId: string, text: (waitedFor: WaitedFor) => string, why: string): SettledTurn {
  const paused = record.result();
  const result = 'stopReason' in paused ? paused : undefined;
  const questions = new Set((result?.pendingElicitations ?? []).map((asked) => asked.toolCallId));
  const samplings = new Set((result?.pendingApprovals ?? []).filter((pending) => pending.sampling).map((pending) => pending.toolCallId));
  const waitedFor = (id: string): WaitedFor => (questions.has(id) ? 'answer' : samplings.has(id) ? 'sampling' : 'approval');
  const { messages, unanswered } = closeWith(record.messages(), (call) => text(waitedFor(call.id)));
  const { pendingApprovals: _decided, pendingElicitations: _asked, ...rest } = result ?? { ...paused, pendingApprovals: undefined, pendingElicitations: undefined };
  return {
    messages,
    result: {
      ...rest,
      conversationId,
      turn: record.turn,
      reply: `${why} ${unanswered.map((call) => `${call.name} (${call.id})`).join(', ')} did not ${questions.size > 0 || samplings.size > 0 ? 'complete' : 'run'}.`,
      stopReason: result?.stopReason === 'input_required' ? 'input_required' : 'approval_required',
      toolCalls: [...paused.toolCalls, ...unanswered],
    },
  };
}

function closeWith(messages: HistoryMessage[], text: (call: ToolCall) => string): { messages: HistoryMessage[]; unanswered: ToolCallRecord[] } {
  const unanswered = unansweredCalls(messages).map((call) => ({ id: call.id, name: call.name, arguments: shownArguments(call.arguments), ok: false, durationMs: 0 }));
  return { messages: closeOpenRound(messages, text), unanswered };
}
