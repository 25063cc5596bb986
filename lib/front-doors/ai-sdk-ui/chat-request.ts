import { InputError } from '../../core/errors.ts';
import { isJsonObject } from '../../core/json.ts';
import type { TurnResult } from '../../core/turn.ts';
import type { Agent } from '../../agent/agent-api.ts';
import type { LoopEvent } from '../../agent/loop/loop-events.ts';
import { readResponseFormat } from '../../agent/turn/read-response-format.ts';
import { checkConversationId, REQUEST_ID_PATTERN, type ApprovalDecision } from '../../agent/turn/validate-input.ts';
import { readJsonObject } from '../../http/body.ts';
import { traceOf } from '../../http/trace-of.ts';
import { callerTokenOf } from '../../http/caller-token-of.ts';
import type { HttpRequest } from '../../http/types.ts';

/** A useChat request, read and checked before a turn starts: a question, or approval decisions. */
export interface ChatCall {
  conversationId: string;
  /** The calls this request declines (their answer is shown as denied). */
  declined: ReadonlySet<string>;
  /** A structured answer was asked for: the reply is sent whole at the end, never as it streams. */
  structured: boolean;
  run(agent: Pick<Agent, 'ask' | 'decide'>, onEvent: (event: LoopEvent) => void): Promise<TurnResult>;
}

/**
 * What useChat's DefaultChatTransport POSTs: `{id, messages, trigger, messageId, ...body}`, the
 * messages UI messages (`{id, role, parts}`). The chat's `id` is the conversation: the service keeps
 * its history, so only the last message is read:
 *
 *   a user message                 → its text parts are the question (a new turn)
 *   an assistant message whose tool
 *   parts carry approval responses → the decisions on the paused turn (addToolApprovalResponse)
 *
 * The user message's id is the turn's requestId, so a client that sends it again (a retry after a
 * dropped connection) gets the stored turn rather than a second one.
 */
export function readChatCall(request: HttpRequest, maxBodyBytes: number): ChatCall {
  const body = readJsonObject(request, maxBodyBytes);
  if (typeof body.id !== 'string') throw new InputError('missing_conversation_id', 'The body must have the chat\'s "id" (useChat sends it): it names the conversation.');
  checkConversationId(body.id);
  const conversationId = body.id;
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw new InputError('invalid_messages', '"messages" must be a non-empty array of UI messages, the last one the user\'s: [{"id", "role": "user", "parts": [{"type": "text", "text": "..."}]}].');
  const last: unknown = body.messages.at(-1);
  if (!isJsonObject(last) || !Array.isArray(last.parts)) throw new InputError('invalid_messages', 'The last message must be a UI message {"id", "role", "parts": [...]}.');
  const context = {
    conversationId,
    ...(request.owner ? { owner: request.owner } : {}),
    ...(request.deadlineAt === undefined ? {} : { deadlineAt: request.deadlineAt }),
    ...traceOf(request),
    ...callerTokenOf(request),
  };
  if (last.role === 'assistant') {
    const decisions = approvalResponses(last.parts);
    if (decisions.length === 0) throw new InputError('invalid_messages', 'The last message is the assistant\'s without approval responses: send the user\'s message, or answer a tool-approval-request with addToolApprovalResponse.');
    const declined = new Set(decisions.filter((decision) => decision.approved === false).map((decision) => decision.toolCallId));
    return { conversationId, declined, structured: false, run: (agent, onEvent) => agent.decide({ ...context, decisions, onEvent }) };
  }
  if (last.role !== 'user') throw new InputError('invalid_messages', `The last message must be the user's, not "${String(last.role)}".`);
  const message = last.parts
    .filter((part): part is { type: 'text'; text: string } => isJsonObject(part) && part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n\n');
  if (message.trim() === '') throw new InputError('empty_message', 'The user\'s message has no text parts with text.');
  // The user message's id makes a retry of the same message idempotent (it gets the stored turn);
  // regenerating sends the same message on purpose, for a new turn.
  const requestId = body.trigger !== 'regenerate-message' && typeof last.id === 'string' && REQUEST_ID_PATTERN.test(last.id) ? last.id : undefined;
  // useChat's `body` option (or sendMessage's) adds fields beside the messages: `responseFormat` asks
  // for a structured answer (docs/structured-answers.md), checked here so a bad one is a 400.
  const format = body.responseFormat === undefined ? {} : { responseFormat: readResponseFormat(body.responseFormat) };
  return { conversationId, declined: new Set(), structured: 'responseFormat' in format, run: (agent, onEvent) => agent.ask({ ...context, message, ...format, ...(requestId === undefined ? {} : { requestId }), onEvent }) };
}

/** The tool parts in `approval-responded` state: `{toolCallId, approval: {id, approved, reason?}}`. */
function approvalResponses(parts: unknown[]): ApprovalDecision[] {
  return parts.flatMap((part): ApprovalDecision[] => {
    if (!isJsonObject(part) || part.state !== 'approval-responded' || typeof part.toolCallId !== 'string' || !isJsonObject(part.approval)) return [];
    const { approved, reason } = part.approval;
    if (typeof approved !== 'boolean') return [];
    return [{ toolCallId: part.toolCallId, approved, ...(typeof reason === 'string' && reason !== '' ? { reason } : {}) }];
  });
}
