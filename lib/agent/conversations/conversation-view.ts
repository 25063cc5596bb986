import type { HistoryMessage } from '../../core/messages.ts';
import type { TurnRecord } from '../../core/ports/conversation-store.ts';
import type { PendingApproval, PendingElicitation, StopReason, TurnResult } from '../../core/turn.ts';
import { settledTurn, type TurnRules } from '../turn/open-turn.ts';
import { approvalExpired, leaseHolds } from '../turn/turn-opening.ts';

interface ConversationTurnView {
  turn: number;
  requestId: string;
  createdAt: string;
  /** Absent while the turn waits for approval. */
  completedAt?: string;
  stopReason: StopReason;
  messages: HistoryMessage[];
  /** The calls the turn waits on (`approval_required`, not yet decided). */
  pendingApprovals?: PendingApproval[];
  /** The questions its calls' servers asked (`input_required`, not yet answered). */
  pendingElicitations?: PendingElicitation[];
}

/** With the fields the strategies show: the todo list, the newest turn's plan. */
export interface ConversationView extends Pick<TurnResult, 'todos' | 'plan'> {
  conversationId: string;
  turns: ConversationTurnView[];
  /** Present while turns follow this page: pass it back to read the next one. */
  nextToken?: string;
}

/**
 * Stored turns (a page of them) as a caller reads them, oldest first. A turn still running is left out (it is not
 * part of the conversation yet); one whose process died, or whose approvals expired, is shown as the
 * next request will complete it, so what the caller reads never depends on whether one came yet.
 */
export function conversationView(conversationId: string, records: readonly TurnRecord[], now: number, rules: TurnRules): ConversationView {
  const turns = records.flatMap((record): ConversationTurnView[] => {
    const base = { turn: record.turn, requestId: record.requestIds[0] ?? '', createdAt: record.createdAt };
    if (record.status === 'running') {
      if (leaseHolds(record, now)) return [];
      const settled = settledTurn(record, 'interrupted', conversationId, rules);
      return [{ ...base, stopReason: settled.result.stopReason, messages: settled.messages }];
    }
    if (record.status === 'paused') {
      if (approvalExpired(record, now)) {
        const settled = settledTurn(record, 'approval-expired', conversationId, rules);
        return [{ ...base, stopReason: settled.result.stopReason, messages: settled.messages }];
      }
      const result = record.result() as TurnResult;
      const asked = result.pendingElicitations ? { pendingElicitations: result.pendingElicitations } : {};
      return [{ ...base, stopReason: result.stopReason, messages: record.messages(), pendingApprovals: result.pendingApprovals ?? [], ...asked }];
    }
    const result = record.result() as TurnResult;
    return [{ ...base, ...(record.completedAt ? { completedAt: record.completedAt } : {}), stopReason: result.stopReason, messages: record.messages() }];
  });
  return { conversationId, turns };
}
