import { InputError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { TurnResult } from '../core/turn.ts';
import type { Agent } from '../agent/agent.ts';
import { checkRequestId } from '../agent/validate-input.ts';
import { readJsonObject } from './body.ts';
import { errorResponse, failedTurnResponse, json } from './errors.ts';
import { matchRoute } from './routes.ts';
import type { HttpRequest, HttpResponse } from './types.ts';

export interface HttpHandlerOptions {
  agent: Agent;
  logger: Logger;
  maxBodyBytes: number;
}

/** The HTTP contract of DESIGN.md, shared by the Lambda handler and the local server. */
export function createHttpHandler(options: HttpHandlerOptions): (request: HttpRequest) => Promise<HttpResponse> {
  const { agent, logger, maxBodyBytes } = options;

  async function route(request: HttpRequest): Promise<HttpResponse> {
    const match = matchRoute(request.method, request.path);
    const owner = request.owner ? { owner: request.owner } : {};
    switch (match.route) {
      case 'health':
        return json(200, await agent.health());
      case 'getConversation':
        return json(200, await agent.getConversation({ conversationId: match.conversationId!, ...owner }));
      case 'deleteConversation':
        await agent.deleteConversation({ conversationId: match.conversationId!, ...owner });
        return { statusCode: 204, headers: {}, body: '' };
      case 'createConversation':
      case 'postMessage': {
        const body = readJsonObject(request, maxBodyBytes);
        const unknown = Object.keys(body).filter((key) => key !== 'message' && key !== 'requestId');
        if (unknown.length > 0) {
          throw new InputError(400, 'unknown_field', `Unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => `"${key}"`).join(', ')}: the body takes "message" and optionally "requestId".`);
        }
        checkRequestId(body.requestId);
        const result = await agent.ask({
          message: body.message as string,
          ...(match.conversationId === undefined ? {} : { conversationId: match.conversationId }),
          ...(body.requestId === undefined ? {} : { requestId: body.requestId }),
          ...(request.deadlineAt === undefined ? {} : { deadlineAt: request.deadlineAt }),
          ...owner,
        });
        return turnResponse(result, match.route === 'createConversation' ? 201 : 200);
      }
    }
  }

  return async (request) => {
    try {
      return await route(request);
    } catch (error) {
      const response = errorResponse(error, logger);
      const allow = (error as { allow?: string }).allow;
      if (allow) response.headers.allow = allow;
      return response;
    }
  };
}

function turnResponse(result: TurnResult, status: number): HttpResponse {
  if (result.error) return failedTurnResponse({ ...result, error: result.error });
  return json(status, result);
}
