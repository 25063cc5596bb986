/**
 * The decisions a case gives when its turn pauses for approval, and the check that the turn paused
 * as the case expects: a pause for a tool the case does not name fails it (the agent asked where it
 * should not, or the case forgot it), and so does a named tool that never paused.
 */
import type { ApprovalDecision } from '../agent/turn/validate-input.ts';
import type { PendingApproval } from '../core/turn.ts';
import type { CheckFailure } from './checks.ts';
import type { ApprovalAnswer } from './suite-schema.ts';

export type Decided = { kind: 'decided'; decisions: ApprovalDecision[] } | { kind: 'unexpected'; failure: CheckFailure };

/** One decision per waiting call, from the first answer naming its tool (or `*`); `used` collects the answers given. */
export function decide(pending: PendingApproval[], answers: ApprovalAnswer[], used: Set<ApprovalAnswer>): Decided {
  const decisions: ApprovalDecision[] = [];
  for (const call of pending) {
    const answer = answers.find((each) => each.tool === call.name) ?? answers.find((each) => each.tool === '*');
    if (!answer) {
      return { kind: 'unexpected', failure: { kind: 'approval', message: `the turn paused for approval of ${call.name}; the case gives no decision for it (add approvals: [{ tool: ${call.name}, decision: approve }] if the pause is expected)` } };
    }
    used.add(answer);
    decisions.push({ toolCallId: call.toolCallId, approved: answer.decision === 'approve', ...(answer.reason ? { reason: answer.reason } : {}) });
  }
  return { kind: 'decided', decisions };
}

/** The answers naming a tool that never paused. */
export function unusedAnswers(answers: ApprovalAnswer[], used: Set<ApprovalAnswer>): CheckFailure[] {
  return answers
    .filter((answer) => answer.tool !== '*' && !used.has(answer))
    .map((answer) => ({ kind: 'approval', message: `expected the turn to pause for approval of ${answer.tool} (to ${answer.decision} it); it never did` }));
}
