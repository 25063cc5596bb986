import { InputError } from '../core/errors.ts';
import type { AskInput } from '../agent/agent.ts';
import { checkRequestId } from '../agent/validate-input.ts';
import { readJsonObject } from './body.ts';
import type { RouteMatch } from './routes.ts';
import type { HttpRequest } from './types.ts';

/**
 * The question a POST conversation route carries, read and checked before any turn starts: the
 * buffered and the streaming responses share it, so both reject bad input with the same 4xx.
 * (The agent checks the message itself, also before it claims a turn.)
 */
export function readAskInput(request: HttpRequest, match: RouteMatch, maxBodyBytes: number): AskInput {
  const body = readJsonObject(request, maxBodyBytes);
  const unknown = Object.keys(body).filter((key) => key !== 'message' && key !== 'requestId');
  if (unknown.length > 0) {
    throw new InputError(400, 'unknown_field', `Unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => `"${key}"`).join(', ')}: the body takes "message" and optionally "requestId".`);
  }
  checkRequestId(body.requestId);
  return {
    message: body.message as string,
    ...(match.conversationId === undefined ? {} : { conversationId: match.conversationId }),
    ...(body.requestId === undefined ? {} : { requestId: body.requestId }),
    ...(request.deadlineAt === undefined ? {} : { deadlineAt: request.deadlineAt }),
    ...(request.owner ? { owner: request.owner } : {}),
  };
}
