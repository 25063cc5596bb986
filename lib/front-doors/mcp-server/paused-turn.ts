import { inputRequired, inputResponse, type InputRequest } from '@modelcontextprotocol/server';
import type { ApprovalDecision } from '../../agent/turn/validate-input.ts';
import type { TurnResult } from '../../core/turn.ts';

/**
 * What a paused turn waits on, carried through the client in `requestState` (protocol revision
 * 2026-07-28, multi-round-trip requests): the conversation and the calls asked about. Nothing waits
 * in a process: the turn is stored paused, and whichever invocation receives the retried call
 * decides it. The state is the caller's to read and change; it needs no seal because it grants
 * nothing: agent.decide checks the owner and that each call id is one that waits.
 */
export interface PausedTurnState {
  conversationId: string;
  approvals: string[];
  questions: string[];
}

type FormSchema = Parameters<typeof inputRequired.elicit>[0]['requestedSchema'];

export const isPaused = (result: TurnResult) => result.stopReason === 'approval_required' || result.stopReason === 'input_required';

/** The paused turn as an input_required result: one elicitation per call that waits. */
export function askTheClient(result: TurnResult) {
  const approvals = result.pendingApprovals ?? [];
  const questions = result.pendingElicitations ?? [];
  const inputRequests: Record<string, InputRequest> = {};
  for (const call of approvals) {
    inputRequests[approvalKey(call.toolCallId)] = inputRequired.elicit({
      message: `The agent wants to call ${call.name} (on ${call.server}) with ${JSON.stringify(call.arguments)}. Accept to let it run, decline to refuse.`,
      requestedSchema: { type: 'object', properties: {} },
    });
  }
  for (const question of questions) {
    if (question.mode === 'url' && question.url !== undefined) {
      // A page to visit (URL-mode elicitation) is passed on as one: only the person can open it.
      inputRequests[answerKey(question.toolCallId)] = inputRequired.elicitUrl({ message: question.message, url: question.url });
      continue;
    }
    inputRequests[answerKey(question.toolCallId)] = inputRequired.elicit({
      message: question.message,
      // The form schema the tool's server sent (the MCP SDK's client checked its shape on receipt): passed on as it is.
      requestedSchema: question.requestedSchema as FormSchema,
    });
  }
  const state: PausedTurnState = { conversationId: result.conversationId, approvals: approvals.map((call) => call.toolCallId), questions: questions.map((question) => question.toolCallId) };
  return inputRequired({ inputRequests, requestState: JSON.stringify(state) });
}

/** The state a retried call carries back, when it is one of ours. */
export function readPausedTurnState(raw: unknown): PausedTurnState | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    const state = JSON.parse(raw) as Partial<PausedTurnState>;
    const ids = (value: unknown) => Array.isArray(value) && value.every((id) => typeof id === 'string');
    if (typeof state.conversationId !== 'string' || !ids(state.approvals) || !ids(state.questions)) return undefined;
    return state as PausedTurnState;
  } catch {
    return undefined;
  }
}

/**
 * The client's answers as decisions on the paused turn: an accepted approval runs the call, a
 * declined or cancelled one (or one left unanswered) does not; a question's answer is passed on
 * as the tool's server asked for it.
 */
export function decisionsFrom(state: PausedTurnState, responses: Record<string, unknown> | undefined): ApprovalDecision[] {
  const approvals = state.approvals.map((toolCallId): ApprovalDecision => {
    const view = inputResponse(responses, approvalKey(toolCallId));
    if (view.kind === 'elicit' && view.action === 'accept') return { toolCallId, approved: true };
    return { toolCallId, approved: false, reason: view.kind === 'elicit' ? `The user chose "${view.action}" when asked to approve it.` : 'The calling client did not answer.' };
  });
  const answers = state.questions.map((toolCallId): ApprovalDecision => {
    const view = inputResponse(responses, answerKey(toolCallId));
    if (view.kind !== 'elicit') return { toolCallId, answer: { action: 'cancel' } };
    return { toolCallId, answer: view.action === 'accept' ? { action: 'accept', content: (view.content ?? {}) as Record<string, string | number | boolean | string[]> } : { action: view.action } };
  });
  return [...approvals, ...answers];
}

/**
 * For a client that cannot be asked (it did not declare elicitation, or speaks a 2025 revision,
 * which a stateless server cannot send requests to): what waits, and how to decide it.
 */
export function waitingText(result: TurnResult): string {
  const approvals = (result.pendingApprovals ?? []).map((call) => `- ${call.name} (on ${call.server}) with ${JSON.stringify(call.arguments)}: toolCallId ${call.toolCallId}`);
  const questions = (result.pendingElicitations ?? []).map((question) => `- ${question.name} asks: ${question.message}${question.url === undefined ? '' : ` (open ${question.url})`} (toolCallId ${question.toolCallId})`);
  return [
    `The turn is paused (conversation ${result.conversationId}, turn ${result.turn}).`,
    ...(approvals.length > 0 ? ['These calls wait for approval:', ...approvals] : []),
    ...(questions.length > 0 ? ['These tools wait for an answer:', ...questions] : []),
    `Decide them with POST /conversations/${result.conversationId}/approvals and {"decisions": [{"toolCallId": "...", "approved": true}]} on this service's HTTP API, or call this tool again with this conversationId and a new message, which declines them.`,
  ].join('\n');
}

const approvalKey = (toolCallId: string) => `approve-${toolCallId}`;
const answerKey = (toolCallId: string) => `answer-${toolCallId}`;
