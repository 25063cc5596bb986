import type { HistoryMessage } from '../core/messages.ts';
import type { StopReason, TurnError } from '../core/turn.ts';

/**
 * The reply of a turn that stopped without a final answer: the model's last words when it said
 * anything, followed by why the turn stopped, so the caller always gets something useful to show.
 */
export function fallbackReply(reason: Exclude<StopReason, 'completed'>, messages: readonly HistoryMessage[], maxRounds: number, error?: TurnError): string {
  const lastWords = [...messages].reverse().find((message) => message.role === 'assistant' && message.content)?.content;
  const tools = [...new Set(messages.flatMap((message) => (message.role === 'tool' ? [message.name] : [])))];
  const used = tools.length > 0 ? ` Tools used so far: ${tools.join(', ')}.` : '';
  const why = {
    max_rounds: `I stopped after ${maxRounds} rounds without reaching a final answer.${used} Ask me to continue if you want me to go on.`,
    deadline: `I ran out of time before reaching a final answer.${used} Ask me to continue if you want me to go on.`,
    error: `The language model failed before I could finish (${error?.message ?? 'unknown error'}).${used} The results so far are kept in this conversation; ask again to continue.`,
  }[reason];
  return lastWords ? `${lastWords}\n\n${why}` : why;
}
