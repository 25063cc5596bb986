import { condenseTurn, estimateTokens } from '../core/history.ts';
import type { HistoryMessage } from '../core/messages.ts';
import type { EarlierTurn } from '../agent/extension-api/extension.ts';

/**
 * Turns as the text the summary call reads: who said what, which tools were called with what, and
 * what they answered (long arguments and results cut: the summary keeps facts, not payloads). As
 * text, not as messages: no tool call can lose its result, and the request holds no tools.
 */

const MAX_ARGUMENT_CHARS = 500;
const MAX_RESULT_CHARS = 1_000;

interface Transcript {
  text: string;
  /** The turns it holds, oldest first; older ones did not fit. */
  from: number;
  to: number;
}

/**
 * The newest of `turns` (oldest first, at least one) whose text fits `budgetTokens`, oldest first.
 * The newest turn is always there: when it does not fit whole, as its question and final answer,
 * cut if need be, so that one huge turn can never hold the summary back for good.
 */
export function transcriptOf(turns: readonly EarlierTurn[], budgetTokens: number): Transcript {
  const newest = turns.at(-1)!;
  const parts: string[] = [];
  let used = 0;
  let from = newest.turn;
  for (const turn of [...turns].reverse()) {
    const text = renderTurn(turn.turn, turn.messages());
    const tokens = tokensOf(text);
    if (used + tokens > budgetTokens) {
      if (turn === newest) parts.push(shortened(turn, budgetTokens));
      break;
    }
    used += tokens;
    parts.unshift(text);
    from = turn.turn;
  }
  return { text: parts.join('\n\n'), from, to: newest.turn };
}

function shortened(turn: EarlierTurn, budgetTokens: number): string {
  const text = renderTurn(turn.turn, condenseTurn(turn.messages()));
  const tokens = tokensOf(text);
  return tokens <= budgetTokens ? text : cut(text, Math.floor((text.length * budgetTokens) / tokens));
}

const tokensOf = (text: string) => estimateTokens([{ role: 'user', content: text }]);

function renderTurn(turn: number, messages: readonly HistoryMessage[]): string {
  const lines = [`### Turn ${turn}`];
  for (const message of messages) {
    if (message.role === 'user') lines.push(`User: ${message.content}`);
    if (message.role === 'tool') lines.push(`Result of ${message.name}: ${cut(message.content, MAX_RESULT_CHARS)}`);
    if (message.role !== 'assistant') continue;
    if (message.content) lines.push(`Assistant: ${message.content}`);
    for (const call of message.toolCalls) lines.push(`Assistant called ${call.name}(${cut(call.arguments, MAX_ARGUMENT_CHARS)})`);
  }
  return lines.join('\n');
}

const cut = (text: string, limit: number) => (text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`);
