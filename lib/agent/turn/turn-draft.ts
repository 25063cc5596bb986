import type { HistoryMessage, ToolCall, UserMessage } from '../../core/messages.ts';
import { emptyProgress, type TurnProgress } from '../../core/turn.ts';

/**
 * A turn while it runs: its messages (the question and everything the loop appended) and what it has
 * done so far. The loop appends to it; the turn's record stores it; its result is made from it.
 */
export interface TurnDraft extends TurnProgress {
  messages: HistoryMessage[];
  /** Calls sent to their tools by this request (not refused, not declined): what a failure must name. */
  ran: ToolCall[];
}

/**
 * A new turn: its question, after the messages a stateless client sent before it (a Chat
 * Completions caller's own history), which the turn stores as its own beginning.
 */
export function newDraft(question: string, earlierMessages: readonly HistoryMessage[] = []): TurnDraft {
  return { messages: [...earlierMessages, { role: 'user', content: question }], ...emptyProgress(), ran: [] };
}

/** A paused turn's draft, taken up again by the request that decides its approvals. */
export function resumedDraft(messages: HistoryMessage[], progress: TurnProgress): TurnDraft {
  return { messages: [...messages], rounds: progress.rounds, toolCalls: [...progress.toolCalls], usage: { ...progress.usage }, ran: [] };
}

/** The turn's question: its last user message (a stateless caller's earlier messages come before it). */
export const questionOf = (draft: TurnDraft): string => draft.messages.findLast((message): message is UserMessage => message.role === 'user')?.content ?? '';

/** What the record of a running turn stores of its draft. */
export const progressOf = (draft: TurnDraft): TurnProgress => ({ rounds: draft.rounds, toolCalls: draft.toolCalls, usage: draft.usage });
