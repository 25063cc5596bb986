import { InputError } from '../core/errors.ts';
import type { AskInput } from '../agent/agent.ts';
import { checkMessage, checkRequestId } from '../agent/validate-input.ts';
import { readJsonObject } from './body.ts';
import type { RouteMatch } from './routes.ts';
import type { HttpRequest } from './types.ts';
import { unknownFieldsText } from '../core/json.ts';

/**
 * The question a POST conversation route carries, read and checked before any turn starts: the
 * buffered and the streaming responses share it, so both reject bad input with the same 4xx.
 * (The agent checks the message itself, also before it claims a turn.)
 */
export function readAskInput(request: HttpRequest, match: RouteMatch, maxBodyBytes: number): AskInput {
  const body = readJsonObject(request, maxBodyBytes);
  const unknown = Object.keys(body).filter((key) => key !== 'message' && key !== 'requestId');
  if (unknown.length > 0) {
    throw new InputError('unknown_field', `${unknownFieldsText(unknown)}: the body takes "message" and optionally "requestId".`);
  }
  checkRequestId(body.requestId);
  // Presence and type here; the length limit is the agent's own check (agent.ask).
  checkMessage(body.message, Number.POSITIVE_INFINITY);
  return {
    message: body.message,
    ...(match.conversationId === undefined ? {} : { conversationId: match.conversationId }),
    ...(body.requestId === undefined ? {} : { requestId: body.requestId }),
    ...(request.deadlineAt === undefined ? {} : { deadlineAt: request.deadlineAt }),
    ...(request.owner ? { owner: request.owner } : {}),
  };
}
