import { TaskState, type Message, type Task, type TaskStatus } from '@a2a-js/sdk';
import type { TurnResult } from '../../core/turn.ts';
import type { StoredTurn } from '../../agent/agent-api.ts';
import { agentMessage, dataPart, replyArtifact, textPart, userMessage } from './parts.ts';
import { taskIdOf } from './task-id.ts';

/**
 * A turn as an A2A task:
 *
 *   running                                -> working
 *   paused (approval_required,
 *           input_required)                -> input-required; the status message says what waits
 *                                             and how to decide it (docs/a2a.md), with the waiting
 *                                             calls as a data part
 *   stopped with `error`                   -> failed; the status message is the reply, which says why
 *   any other stop (completed, max_rounds,
 *   deadline, budget_exhausted, ...)       -> completed; the reply is the artifact `reply` and the
 *                                             status message
 *
 * Every task carries the native turn result as metadata `mcpAgent`, so a client that wants the
 * tool calls, usage or stop reason has them.
 */
export function taskOfResult(result: TurnResult, question: string | undefined, now: Date): Task {
  const ids = { taskId: taskIdOf(result.conversationId, result.turn), contextId: result.conversationId };
  const state = stateOf(result);
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: statusOfResult(result, now),
    artifacts: state === TaskState.TASK_STATE_COMPLETED ? [replyArtifact(result)] : [],
    history: question === undefined ? [] : [userMessage(question, ids)],
    metadata: { mcpAgent: result },
  };
}

/** The status a turn result ends its task with. */
export function statusOfResult(result: TurnResult, now: Date): TaskStatus {
  const ids = { taskId: taskIdOf(result.conversationId, result.turn), contextId: result.conversationId };
  const state = stateOf(result);
  const message: Message =
    state === TaskState.TASK_STATE_INPUT_REQUIRED
      ? agentMessage([textPart(whatWaits(result)), dataPart({ pendingApprovals: result.pendingApprovals ?? [], pendingElicitations: result.pendingElicitations ?? [] })], ids)
      : agentMessage([textPart(result.reply)], ids);
  return { state, message, timestamp: now.toISOString() };
}

/** A task that has only begun: what a stream shows first. */
export function workingTask(conversationId: string, turn: number, question: string | undefined, now: Date): Task {
  const ids = { taskId: taskIdOf(conversationId, turn), contextId: conversationId };
  return {
    id: ids.taskId,
    contextId: conversationId,
    status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now.toISOString() },
    artifacts: [],
    history: question === undefined ? [] : [userMessage(question, ids)],
    metadata: undefined,
  };
}

/** A stored turn (tasks/get): its question, and its state now. */
export function taskOfStoredTurn(conversationId: string, stored: StoredTurn, now: Date): Task {
  const question = stored.messages.find((message) => message.role === 'user')?.content;
  if (stored.status === 'running' || !('stopReason' in stored.result)) return { ...workingTask(conversationId, stored.turn, question, now), metadata: { mcpAgent: stored.result } };
  return taskOfResult(stored.result, question, now);
}

function stateOf(result: TurnResult): TaskState {
  if (result.stopReason === 'approval_required' || result.stopReason === 'input_required') return TaskState.TASK_STATE_INPUT_REQUIRED;
  if (result.stopReason === 'error') return TaskState.TASK_STATE_FAILED;
  return TaskState.TASK_STATE_COMPLETED;
}

/** The reply, then what waits and how to answer, in words a person or another agent can act on. */
function whatWaits(result: TurnResult): string {
  const lines = [result.reply.trim()];
  for (const call of result.pendingApprovals ?? []) lines.push(`Waiting for approval: ${call.name} (${call.server}) with ${JSON.stringify(call.arguments)}, call id ${call.toolCallId}.`);
  for (const question of result.pendingElicitations ?? []) lines.push(`Waiting for an answer: ${question.message}${question.url === undefined ? '' : ` (open ${question.url}, then accept)`} (${question.name}, call id ${question.toolCallId}).`);
  lines.push('Reply in this task with "approve" or "decline", or with a data part {"decisions": [{"toolCallId": "...", "approved": true}]} (an answer: {"toolCallId": "...", "answer": {"action": "accept", "content": {...}}}).');
  return lines.filter(Boolean).join('\n');
}
