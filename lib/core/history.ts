import type { AssistantMessage, HistoryMessage, Message, ToolCall, ToolMessage } from './messages.ts';

/**
 * A rough token estimate: about four characters a token for Latin text, one a token for CJK and
 * other wide scripts (which tokenizers split far finer), plus a little per message. The history
 * budget only needs to be in the right range, and no tokenizer fits every provider.
 */
export function estimateTokens(messages: readonly Message[]): number {
  let quarterTokens = 0;
  for (const message of messages) {
    quarterTokens += 16;
    if (message.role === 'assistant') {
      quarterTokens += textWeight(message.content ?? '');
      for (const call of message.toolCalls) quarterTokens += textWeight(call.name) + textWeight(call.arguments) + 16;
    } else {
      quarterTokens += textWeight(message.content);
    }
  }
  return Math.ceil(quarterTokens / 4);
}

/** Quarter-tokens of a text: 1 per character below U+2E80 (Latin, Cyrillic, ...), 4 for wider scripts. */
function textWeight(text: string): number {
  let weight = 0;
  for (let index = 0; index < text.length; index++) weight += text.charCodeAt(index) < 0x2e80 ? 1 : 4;
  return weight;
}

/**
 * A turn too large for the history budget, reduced to its question and final answer. It still
 * satisfies the history invariant (no tool call is kept, so none lacks its result), and it keeps
 * the conversation's thread when one huge tool output would otherwise push every turn out.
 */
export function condenseTurn(messages: readonly HistoryMessage[]): HistoryMessage[] {
  const question = messages.find((message) => message.role === 'user');
  const last = messages.at(-1);
  const answer = last?.role === 'assistant' && last.toolCalls.length === 0 && last.content ? [{ ...last }] : [];
  return question ? [question, ...answer] : [];
}

/**
 * Picks whole turns, newest first, until the next one would exceed the budget, and returns them
 * oldest first. A turn is the unit because it always satisfies the history invariant on its own,
 * so trimming can never separate a tool call from its results.
 */
export function selectTurnsWithinBudget<T extends { tokens: number }>(
  turnsNewestFirst: readonly T[],
  budgetTokens: number,
): T[] {
  const selected: T[] = [];
  let used = 0;
  for (const turn of turnsNewestFirst) {
    if (used + turn.tokens > budgetTokens) break;
    used += turn.tokens;
    selected.push(turn);
  }
  return selected.reverse();
}

/**
 * The history invariant: every assistant message with tool calls is followed by exactly one tool
 * message per call id, before any other assistant or user message. Returns what is wrong, or an
 * empty list.
 */
export function historyViolations(messages: readonly Message[]): string[] {
  const violations: string[] = [];
  let pending: Set<string> | undefined;
  let pendingAt = -1;
  const closePending = (index: number) => {
    if (pending && pending.size > 0) {
      violations.push(
        `assistant message ${pendingAt} has tool calls without results before message ${index}: ${[...pending].join(', ')}`,
      );
    }
    pending = undefined;
  };
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      if (!pending?.delete(message.toolCallId)) {
        violations.push(`tool message ${index} (${message.toolCallId}) answers no open tool call`);
      }
      return;
    }
    closePending(index);
    if (message.role === 'assistant' && message.toolCalls.length > 0) {
      pending = new Set(message.toolCalls.map((call) => call.id));
      pendingAt = index;
      if (pending.size !== message.toolCalls.length) {
        violations.push(`assistant message ${index} repeats a tool call id`);
      }
    }
  });
  closePending(messages.length);
  return violations;
}

/**
 * The last round of a turn's messages when it is open: its assistant message asked for tools and
 * not every call has its tool message yet (a paused turn, or a turn that died while calls ran).
 */
interface OpenRound {
  /** Index of the assistant message in the list. */
  at: number;
  assistant: AssistantMessage;
  /** Tool messages already there, by call id. */
  answered: Map<string, ToolMessage>;
  /** Calls still without a tool message, in the calls' order. */
  unanswered: ToolCall[];
}

export function findOpenRound(messages: readonly HistoryMessage[]): OpenRound | undefined {
  let at = messages.length - 1;
  while (at >= 0 && messages[at]!.role === 'tool') at--;
  const assistant = messages[at];
  if (assistant?.role !== 'assistant' || assistant.toolCalls.length === 0) return undefined;
  const answered = new Map<string, ToolMessage>();
  for (const message of messages.slice(at + 1)) if (message.role === 'tool') answered.set(message.toolCallId, message);
  const unanswered = assistant.toolCalls.filter((call) => !answered.has(call.id));
  return unanswered.length === 0 ? undefined : { at, assistant, answered, unanswered };
}

/**
 * Closes every open round: each call of an assistant message gets its tool message right after it,
 * in the calls' order, those without one from `answer`. A paused turn has one open round, at the
 * end; a turn whose process died while tasks ran side by side may have several. The result
 * satisfies the history invariant again.
 */
export function closeOpenRound(messages: readonly HistoryMessage[], answer: (call: ToolCall) => string): HistoryMessage[] {
  const closed: HistoryMessage[] = [];
  let at = 0;
  while (at < messages.length) {
    const message = messages[at]!;
    at += 1;
    if (message.role === 'tool') continue;
    closed.push(message);
    if (message.role !== 'assistant' || message.toolCalls.length === 0) continue;
    const answered = new Map<string, ToolMessage>();
    for (; at < messages.length && messages[at]!.role === 'tool'; at += 1) {
      const tool = messages[at] as ToolMessage;
      answered.set(tool.toolCallId, tool);
    }
    for (const call of message.toolCalls) closed.push(answered.get(call.id) ?? { role: 'tool', toolCallId: call.id, name: call.name, content: answer(call) });
  }
  return closed;
}

/** The calls of every assistant message that have no tool message after it (see closeOpenRound). */
export function unansweredCalls(messages: readonly HistoryMessage[]): ToolCall[] {
  const unanswered: ToolCall[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    const answered = new Set<string>();
    for (let at = index + 1; at < messages.length && messages[at]!.role === 'tool'; at += 1) answered.add((messages[at] as ToolMessage).toolCallId);
    unanswered.push(...message.toolCalls.filter((call) => !answered.has(call.id)));
  });
  return unanswered;
}

/** Whole complete turns within the budget, newest first in, oldest first out; see historyMessages. */
interface BudgetedTurn {
  tokens: number;
  messages(): HistoryMessage[];
}

/**
 * The history sent with a question: whole turns, newest first, until the next would exceed the
 * budget, oldest first; and before them a condensed form of the turn that did not fit (its question
 * and final answer) when that still fits the budget left.
 */
export function historyMessages(completeNewestFirst: readonly BudgetedTurn[], budgetTokens: number): HistoryMessage[] {
  const selected = selectTurnsWithinBudget(completeNewestFirst, budgetTokens);
  const whole = selected.flatMap((turn) => turn.messages());
  const overflow = completeNewestFirst[selected.length];
  if (!overflow) return whole;
  const used = selected.reduce((sum, turn) => sum + turn.tokens, 0);
  const condensed = condenseTurn(overflow.messages());
  return estimateTokens(condensed) <= budgetTokens - used ? [...condensed, ...whole] : whole;
}

/**
 * A caller's own earlier messages (the chat a stateless Chat Completions client sends with each
 * question) cut as a stored conversation's history is: split into exchanges at each user message,
 * then historyMessages over them. An exchange keeps each tool call with its results, so the cut
 * keeps the invariant whenever the whole kept it.
 */
export function windowOfMessages(messages: readonly HistoryMessage[], budgetTokens: number): HistoryMessage[] {
  const exchanges: HistoryMessage[][] = [];
  for (const message of messages) {
    if (message.role === 'user' || exchanges.length === 0) exchanges.push([message]);
    else exchanges.at(-1)!.push(message);
  }
  const newestFirst = exchanges.reverse().map((exchange) => ({ tokens: estimateTokens(exchange), messages: () => exchange }));
  return historyMessages(newestFirst, budgetTokens);
}
