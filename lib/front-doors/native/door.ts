import { fileResponse } from './file-response.ts';
import type { TurnResult } from '../../core/turn.ts';
import { errorResponse, json, turnResultHeaders } from '../../http/errors.ts';
import type { StreamingHttpResponse } from '../../http/event-stream.ts';
import type { FrontDoor, FrontDoorServices } from '../../http/front-door.ts';
import { acceptsEventStream } from '../../http/sse.ts';
import type { HttpRequest } from '../../http/types.ts';
import { readPageQuery, refuseQuery } from './page-query.ts';
import { lastEventIdOf, resumeStream } from './resume-stream.ts';
import { CONNECTION_CALLBACK_PATH, matchRoute, type RouteMatch } from './routes.ts';
import { connectionCallback, deleteConnection, listConnections } from './connection-routes.ts';
import { streamTurn } from './stream-turn.ts';
import { readTurnCall } from './turn-call.ts';

/**
 * The native API of DESIGN.md: conversations, their turns (JSON, or Server-Sent Events for a client
 * that accepts `text/event-stream` where the entry can stream), resuming a turn's stream with
 * Last-Event-ID, traces, memory and health. It answers every path no door before it in the list
 * claims, so an unknown path gets its 404, which names its routes.
 */
export const nativeFrontDoor: FrontDoor = {
  name: 'native',
  matches: () => true,
  handle,
  errorResponse,
  // A provider's redirect back to the service: a browser's, without API credentials (its state proves the owner).
  servesAnyone: (request) => request.method === 'GET' && CONNECTION_CALLBACK_PATH.test(request.path),
};

/** A buffered resume is collected whole; its heartbeats only need to be rare. */
const RESUMED_HEARTBEAT_MS = 15_000;

async function handle(request: HttpRequest, services: FrontDoorServices): Promise<StreamingHttpResponse> {
  const { agent } = services;
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
    case 'listNotes':
      return json(200, await agent.listNotes(request.owner, readPageQuery(request.query, 'GET /memory')));
    case 'deleteNote':
      await agent.deleteNote(request.owner, match.noteId!);
      return { statusCode: 204, headers: {}, body: '' };
    case 'clearNotes':
      return json(200, { deleted: await agent.clearNotes(request.owner) });
    case 'listFiles':
      refuseQuery(request.query, 'GET /conversations/{conversationId}/files');
      return json(200, await agent.listFiles({ conversationId: match.conversationId!, ...owner }));
    case 'getFile':
      refuseQuery(request.query, 'GET /conversations/{conversationId}/files/{name}');
      return fileResponse(await agent.readFile({ conversationId: match.conversationId!, ...owner }, match.fileName!));
    case 'listConnections':
      return listConnections(agent.connections, request);
    case 'deleteConnection':
      return deleteConnection(agent.connections, request, match.server!);
    case 'connectionCallback':
      return connectionCallback(agent.connections, request, match.server!, services.logger);
    case 'createConversation':
    case 'postMessage':
    case 'decideApprovals':
      return turn(request, match, services);
  }
}

/**
 * A turn route. A request that carries Last-Event-ID resumes the turn's stream instead (never a new
 * turn; all at once where the entry cannot stream); a client that accepts `text/event-stream` gets
 * the turn as events where the entry can stream; everyone else gets the turn result as JSON.
 */
async function turn(request: HttpRequest, match: RouteMatch, services: FrontDoorServices): Promise<StreamingHttpResponse> {
  const { agent, logger, heartbeatMs } = services;
  const lastEventId = lastEventIdOf(request);
  if (lastEventId !== undefined) return resumeStream(request, match, lastEventId, { agent, logger, heartbeatMs: heartbeatMs ?? RESUMED_HEARTBEAT_MS });
  const call = readTurnCall(request, match, services.maxBodyBytes);
  if (heartbeatMs !== undefined && acceptsEventStream(request.headers.accept)) return streamTurn(call, { agent, logger, heartbeatMs });
  const result = await call.run(agent);
  return turnResponse(result, match.route === 'createConversation' ? 201 : 200);
}

function turnResponse(result: TurnResult, status: number) {
  return json(status, result, turnResultHeaders(result));
}
