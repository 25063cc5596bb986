import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Message } from '@a2a-js/sdk';
import { isJsonObject } from '../../core/json.ts';
import type { TurnResult } from '../../core/turn.ts';
import type { DecideInput } from '../../agent/agent-api.ts';
import { dataOf, textOf } from './parts.ts';

const APPROVE = /^(approve|approved|yes|ok)\.?$/i;
const DECLINE = /^(decline|declined|deny|denied|no|reject)\.?$/i;

/**
 * The decisions a message sent into a paused task carries (docs/a2a.md):
 * - a data part `{"decisions": [...]}`: the native API's decisions, as POST
 *   /conversations/{id}/approvals takes them (checked there);
 * - or the text "approve" (every waiting call runs) or "decline" (none runs; a question is
 *   declined). The agent's own words ("yes", "no") are read the same way.
 * Anything else is refused before the turn goes on, saying how to answer.
 */
export function decisionsOf(message: Message, paused: TurnResult): DecideInput['decisions'] {
  const data = dataOf(message);
  if (isJsonObject(data) && data.decisions !== undefined) return data.decisions as DecideInput['decisions'];
  const text = textOf(message);
  const approvals = paused.pendingApprovals ?? [];
  const questions = paused.pendingElicitations ?? [];
  if (DECLINE.test(text)) {
    return [
      ...approvals.map((call) => ({ toolCallId: call.toolCallId, approved: false })),
      ...questions.map((question) => ({ toolCallId: question.toolCallId, answer: { action: 'decline' as const } })),
    ];
  }
  if (APPROVE.test(text)) {
    if (questions.length > 0) throw new RequestMalformedError('The task waits for answers to questions: send a data part {"decisions": [{"toolCallId": "...", "answer": {"action": "accept", "content": {...}}}]}, or "decline".');
    return approvals.map((call) => ({ toolCallId: call.toolCallId, approved: true }));
  }
  throw new RequestMalformedError('The task waits for a decision: reply "approve" or "decline", or send a data part {"decisions": [{"toolCallId": "...", "approved": true}]}. To ask something else, send a message in the same context without the task id.');
}
