import type { HistoryMessage } from '../../core/messages.ts';
import type { AnsweredStopReason, PendingApproval, PendingElicitation, StopReason, TurnError } from '../../core/turn.ts';

interface FallbackContext {
  maxRounds: number;
  /** The model calls the turn made; a max_rounds stop names them, not just the limit. */
  rounds?: number;
  error?: TurnError;
  pendingApprovals?: readonly PendingApproval[];
  pendingElicitations?: readonly PendingElicitation[];
}

/**
 * The reply of a turn that stopped without a final answer: the model's last words when it said
 * anything, followed by why the turn stopped, so the caller always gets something useful to show.
 */
export function fallbackReply(reason: Exclude<StopReason, AnsweredStopReason>, messages: readonly HistoryMessage[], context: FallbackContext): string {
  const lastWords = [...messages].reverse().find((message) => message.role === 'assistant' && message.content)?.content;
  const tools = [...new Set(messages.flatMap((message) => (message.role === 'tool' ? [message.name] : [])))];
  const used = tools.length > 0 ? ` Tools used so far: ${tools.join(', ')}.` : '';
  const waiting = (context.pendingApprovals ?? []).map((call) => `${call.name} (${call.toolCallId})`).join(', ');
  const questions = (context.pendingElicitations ?? []).map((asked) => `${asked.name} (${asked.toolCallId}) asks: ${withoutFullStop(asked.message)}.${asked.url === undefined ? '' : ` Open ${asked.url}, then accept.`}`).join(' ');
  const alsoWaiting = waiting ? ` I also need your approval before I run ${waiting}.` : '';
  const why = {
    max_rounds: `I stopped after ${context.rounds ?? context.maxRounds} rounds, at the turn's limit of ${context.maxRounds}, without reaching a final answer.${used} Ask me to continue if you want me to go on.`,
    deadline: `I ran out of time before reaching a final answer.${used} Ask me to continue if you want me to go on.`,
    error: `I could not finish: ${withoutFullStop(context.error?.message ?? 'unknown error')}.${used} The results so far are kept in this conversation; ask again to continue.`,
    approval_required: `I need your approval before I run ${waiting || 'some tool calls'}.${used} Approve or decline each call to continue.`,
    input_required: `A tool needs your answer before it can go on. ${questions || 'It asked a question.'}${alsoWaiting}${used} Answer (or decline) to continue.`,
    interrupted: `The service stopped while I was working on this, so I could not finish.${used} Calls that were still running may or may not have taken effect; check before repeating them.`,
    invalid_output: `My answer did not validate against the JSON Schema asked for, in the last round the turn allowed: ${withoutFullStop(context.error?.message ?? 'invalid output')}.`,
    budget_exhausted: `I stopped because the token budget ran out (${withoutFullStop(context.error?.message ?? 'budget exhausted')}).${used}`,
  }[reason];
  return lastWords ? `${lastWords}\n\n${why}` : why;
}

const withoutFullStop = (text: string) => text.trim().replace(/[.。]+$/, '');
