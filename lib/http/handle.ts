import type { Logger } from '../core/logger.ts';
import type { TurnResult } from '../core/turn.ts';
import type { Agent } from '../agent/agent.ts';
import { readTurnCall } from './turn-call.ts';
import { errorResponse, json, turnResultHeaders } from './errors.ts';
import { fileResponse } from './file-response.ts';
import { readPageQuery, refuseQuery } from './page-query.ts';
import { createOpenAIHandler } from './openai/handle.ts';
import { isOpenAIPath } from './openai/routes.ts';
import { lastEventIdOf, resumeStream } from './resume-stream.ts';
import { matchRoute } from './routes.ts';
import type { EventStreamResponse } from './stream-turn.ts';
import type { HttpRequest, HttpResponse } from './types.ts';

export interface HttpHandlerOptions {
  agent: Agent;
  logger: Logger;
  maxBodyBytes: number;
  /** The OpenAI-compatible front door under /v1 (agent.yml's `openaiApi`); without it /v1 is not served. */
  openaiApi?: { modelId: string };
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
        return json(200, await agent.getConversation({ conversationId: match.conversationId!, ...owner }, readPageQuery(request.query, 'GET /conversations/{conversationId}')));
      case 'getTurnTrace':
        refuseQuery(request.query, 'GET /conversations/{conversationId}/turns/{turn}/trace');
        return json(200, await agent.getTurnTrace({ conversationId: match.conversationId!, ...owner }, match.turn!));
      case 'deleteConversation':
        await agent.deleteConversation({ conversationId: match.conversationId!, ...owner });
        return { statusCode: 204, headers: {}, body: '' };
      case 'listFiles':
        refuseQuery(request.query, 'GET /conversations/{conversationId}/files');
        return json(200, await agent.listFiles({ conversationId: match.conversationId!, ...owner }));
      case 'getFile':
        refuseQuery(request.query, 'GET /conversations/{conversationId}/files/{name}');
        return fileResponse(await agent.readFile({ conversationId: match.conversationId!, ...owner }, match.fileName!));
      case 'listNotes':
        return json(200, await agent.listNotes(request.owner, readPageQuery(request.query, 'GET /memory')));
      case 'deleteNote':
        await agent.deleteNote(request.owner, match.noteId!);
        return { statusCode: 204, headers: {}, body: '' };
      case 'clearNotes':
        return json(200, { deleted: await agent.clearNotes(request.owner) });
      case 'createConversation':
      case 'postMessage':
      case 'decideApprovals': {
        // A client resuming a turn's stream without a stream to read: the rest of it, all at once.
        const lastEventId = lastEventIdOf(request);
        if (lastEventId !== undefined) return bufferedResponse(await resumeStream(request, match, lastEventId, { agent, logger, heartbeatMs: RESUMED_HEARTBEAT_MS }));
        const result = await readTurnCall(request, match, maxBodyBytes).run(agent);
        return turnResponse(result, match.route === 'createConversation' ? 201 : 200);
      }
    }
  }

  const openAI = options.openaiApi && createOpenAIHandler({ agent, logger, maxBodyBytes, modelId: options.openaiApi.modelId });

  return async (request) => {
    // A buffered entry has no stream to write to: a `stream: true` completion is sent whole.
    if (openAI && isOpenAIPath(request.path)) return bufferedResponse(await openAI(request));
    try {
      return await route(request);
    } catch (error) {
      return errorResponse(error, logger);
    }
  };
}

/** A buffered resume is collected whole; its heartbeats only need to be rare. */
const RESUMED_HEARTBEAT_MS = 15_000;

/** An event stream, collected: the same bytes, all at once once the turn has ended. */
async function bufferedResponse(response: HttpResponse | EventStreamResponse): Promise<HttpResponse> {
  if (typeof response.body === 'string') return response as HttpResponse;
  let body = '';
  for await (const piece of response.body) body += String(piece);
  return { statusCode: response.statusCode, headers: response.headers, body };
}

function turnResponse(result: TurnResult, status: number): HttpResponse {
  return json(status, result, turnResultHeaders(result));
}
