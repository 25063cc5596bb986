import type { Logger } from '../core/logger.ts';
import type { TurnResult } from '../core/turn.ts';
import type { Agent } from '../agent/agent.ts';
import { readTurnCall } from './turn-call.ts';
import { errorResponse, failedTurnResponse, json } from './errors.ts';
import { readPageQuery, refuseQuery } from './page-query.ts';
import { matchRoute } from './routes.ts';
import type { HttpRequest, HttpResponse } from './types.ts';

export interface HttpHandlerOptions {
  agent: Agent;
  logger: Logger;
  maxBodyBytes: number;
}

/** The HTTP contract of DESIGN.md, shared by the Lambda handlers and the local server. */
export function createHttpHandler(options: HttpHandlerOptions): (request: HttpRequest) => Promise<HttpResponse> {
  const { agent, logger, maxBodyBytes } = options;

  async function route(request: HttpRequest): Promise<HttpResponse> {
    const match = matchRoute(request.method, request.path);
    const owner = request.owner ? { owner: request.owner } : {};
    switch (match.route) {
      case 'health':
        return json(200, await agent.health());
      case 'getConversation':
        return json(200, await agent.getConversation({ conversationId: match.conversationId!, ...owner }, readPageQuery(request.query)));
      case 'getTurnTrace':
        refuseQuery(request.query, 'GET /conversations/{conversationId}/turns/{turn}/trace');
        return json(200, await agent.getTurnTrace({ conversationId: match.conversationId!, ...owner }, match.turn!));
      case 'deleteConversation':
        await agent.deleteConversation({ conversationId: match.conversationId!, ...owner });
        return { statusCode: 204, headers: {}, body: '' };
      case 'createConversation':
      case 'postMessage':
      case 'decideApprovals': {
        const result = await readTurnCall(request, match, maxBodyBytes).run(agent);
        return turnResponse(result, match.route === 'createConversation' ? 201 : 200);
      }
    }
  }

  return async (request) => {
    try {
      return await route(request);
    } catch (error) {
      return errorResponse(error, logger);
    }
  };
}

function turnResponse(result: TurnResult, status: number): HttpResponse {
  if (result.error) return failedTurnResponse({ ...result, error: result.error });
  return json(status, result);
}
