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

/** An AG-UI run, read and checked before a turn starts. */
export interface AgUiRun {
  threadId: string;
  runId: string;
  /** A structured answer was asked for: the reply is sent whole at the end, never as it streams. */
  structured: boolean;
  run(agent: Pick<Agent, 'ask' | 'decide'>, onEvent: (event: LoopEvent) => void): Promise<TurnResult>;
}

/**
 * What an AG-UI client (HttpAgent, CopilotKit's runtime) POSTs: RunAgentInput `{threadId, runId,
 * messages, tools, state, context, forwardedProps, resume?}`. The thread is the conversation: the
 * service keeps its history, so only the last user message is read (the question). `resume`
 * answers the interrupts of a paused run (ag-ui-events.ts): each entry is a decision on the call
 * its `interruptId` names. `tools`, `state` and `context` are the client's and are not passed on:
 * the agent's tools are its MCP servers, and its state (the todo list, the plan) is its own.
 */
export function readAgUiRun(request: HttpRequest, maxBodyBytes: number): AgUiRun {
  const body = readJsonObject(request, maxBodyBytes);
  if (typeof body.threadId !== 'string') throw new InputError('missing_conversation_id', 'RunAgentInput must have a "threadId": it names the conversation.');
  checkConversationId(body.threadId);
  if (typeof body.runId !== 'string' || body.runId === '') throw new InputError('missing_request_id', 'RunAgentInput must have a "runId".');
  const threadId = body.threadId;
  const runId = body.runId;
  const context = {
    conversationId: threadId,
    // The run id makes a retried run idempotent: it gets the stored turn, not a second one.
    ...(REQUEST_ID_PATTERN.test(runId) ? { requestId: runId } : {}),
    ...(request.owner ? { owner: request.owner } : {}),
    ...(request.deadlineAt === undefined ? {} : { deadlineAt: request.deadlineAt }),
    ...traceOf(request),
    ...callerTokenOf(request),
  };
  if (Array.isArray(body.resume) && body.resume.length > 0) {
    const decisions = body.resume.map(resumeDecision);
    return { threadId, runId, structured: false, run: (agent, onEvent) => agent.decide({ ...context, decisions, onEvent }) };
  }
  if (!Array.isArray(body.messages)) throw new InputError('invalid_messages', '"messages" must be an array of AG-UI messages, the last one the user\'s.');
  const last: unknown = body.messages.at(-1);
  if (!isJsonObject(last) || last.role !== 'user') throw new InputError('invalid_messages', 'The last message must be the user\'s: {"id", "role": "user", "content": "..."}.');
  const message = textOf(last.content);
  if (message.trim() === '') throw new InputError('empty_message', 'The user\'s message has no text.');
  // A structured answer (docs/structured-answers.md) is asked for in forwardedProps, the field AG-UI
  // keeps for what a client passes to its agent: checked here so a bad one is a 400.
  const forwarded = isJsonObject(body.forwardedProps) ? body.forwardedProps : {};
  const format = forwarded.responseFormat === undefined ? {} : { responseFormat: readResponseFormat(forwarded.responseFormat, 'forwardedProps.responseFormat') };
  return { threadId, runId, structured: 'responseFormat' in format, run: (agent, onEvent) => agent.ask({ ...context, message, ...format, onEvent }) };
}

/**
 * A resume entry → a decision: `resolved` with `{approved, reason?}` for a call waiting for approval,
 * `resolved` with the fields asked for (an MCP server's question) as the accepted answer, and
 * `cancelled` as declined.
 */
function resumeDecision(entry: unknown, index: number): ApprovalDecision {
  if (!isJsonObject(entry) || typeof entry.interruptId !== 'string' || (entry.status !== 'resolved' && entry.status !== 'cancelled')) {
    throw new InputError('invalid_decisions', `resume[${index}] must be {"interruptId": "...", "status": "resolved" | "cancelled", "payload"?: {...}}.`);
  }
  const toolCallId = entry.interruptId;
  if (entry.status === 'cancelled') return { toolCallId, approved: false };
  const payload = entry.payload;
  if (isJsonObject(payload) && typeof payload.approved === 'boolean') {
    return { toolCallId, approved: payload.approved, ...(typeof payload.reason === 'string' && payload.reason !== '' ? { reason: payload.reason } : {}) };
  }
  if (!isJsonObject(payload)) throw new InputError('invalid_decisions', `resume[${index}].payload must be {"approved": true | false} for an approval, or the fields the question asked for.`);
  return { toolCallId, answer: { action: 'accept', content: payload } } as ApprovalDecision;
}

/** A message's text: a string, or its text parts joined by blank lines. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => isJsonObject(part) && part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n\n');
}
