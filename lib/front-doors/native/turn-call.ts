import { InputError } from '../../core/errors.ts';
import { unknownFieldsText } from '../../core/json.ts';
import type { TurnResult } from '../../core/turn.ts';
import type { Agent } from '../../agent/agent-api.ts';
import type { LoopEvent } from '../../agent/loop/loop-events.ts';
import { readResponseFormat } from '../../agent/turn/read-response-format.ts';
import { checkDecisions, checkMessage, checkRequestId } from '../../agent/turn/validate-input.ts';
import { readJsonObject } from '../../http/body.ts';
import { traceOf } from '../../http/trace-of.ts';
import { callerTokenOf } from '../../http/caller-token-of.ts';
import type { RouteMatch } from './routes.ts';
import type { HttpRequest } from '../../http/types.ts';

/** A turn a request asks for, checked before it starts: a question, or decisions on pending calls. */
export interface TurnCall {
  conversationId?: string;
  requestId?: string;
  run(agent: Pick<Agent, 'ask' | 'decide'>, onEvent?: (event: LoopEvent) => void): Promise<TurnResult>;
}

/**
 * The body of a turn route, read and checked before any turn starts: the buffered and the streaming
 * responses share it, so both reject bad input with the same 4xx. (The agent checks again, also
 * before it claims a turn.)
 */
export function readTurnCall(request: HttpRequest, match: RouteMatch, maxBodyBytes: number): TurnCall {
  const body = readJsonObject(request, maxBodyBytes);
  const context = {
    ...(match.conversationId === undefined ? {} : { conversationId: match.conversationId }),
    ...(request.deadlineAt === undefined ? {} : { deadlineAt: request.deadlineAt }),
    ...(request.owner ? { owner: request.owner } : {}),
    ...(request.claims ? { claims: request.claims } : {}),
    // The caller's W3C trace context: the turn joins its trace.
    ...traceOf(request),
    ...callerTokenOf(request),
  };
  if (match.route === 'decideApprovals') {
    refuseUnknown(body, ['decisions', 'requestId'], 'the body takes "decisions" and optionally "requestId"');
    checkRequestId(body.requestId);
    checkDecisions(body.decisions);
    const input = { ...context, conversationId: match.conversationId!, decisions: body.decisions, ...optionalRequestId(body.requestId) };
    return { ...input, run: (agent, onEvent) => agent.decide({ ...input, ...(onEvent ? { onEvent } : {}) }) };
  }
  refuseUnknown(body, ['message', 'requestId', 'responseFormat'], 'the body takes "message" and optionally "requestId" and "responseFormat"');
  checkRequestId(body.requestId);
  // Presence and type here; the length limit is the agent's own check (agent.ask).
  checkMessage(body.message, Number.POSITIVE_INFINITY);
  const responseFormat = body.responseFormat === undefined ? undefined : readResponseFormat(body.responseFormat);
  const input = { ...context, message: body.message, ...optionalRequestId(body.requestId), ...(responseFormat ? { responseFormat } : {}) };
  return { ...input, run: (agent, onEvent) => agent.ask({ ...input, ...(onEvent ? { onEvent } : {}) }) };
}

function refuseUnknown(body: Record<string, unknown>, fields: readonly string[], takes: string): void {
  const unknown = Object.keys(body).filter((key) => !fields.includes(key));
  if (unknown.length > 0) throw new InputError('unknown_field', `${unknownFieldsText(unknown)}: ${takes}.`);
}

const optionalRequestId = (requestId: string | undefined) => (requestId === undefined ? {} : { requestId });
