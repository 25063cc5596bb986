import { AgentCard } from '@a2a-js/sdk';
import { json } from '../../http/errors.ts';
import type { StreamingHttpResponse } from '../../http/event-stream.ts';
import type { FrontDoor, FrontDoorServices } from '../../http/front-door.ts';
import type { HttpRequest } from '../../http/types.ts';
import { agentCard, type A2ASettings, type CardContext } from './agent-card.ts';
import { a2aErrorResponse } from './errors.ts';
import { answerJsonRpc } from './json-rpc.ts';
import { legacyAgentCard } from './legacy-card.ts';
import { AgentRequestHandler } from './request-handler.ts';
import { isA2APath, matchA2ARoute } from './routes.ts';

export type { A2ASettings } from './agent-card.ts';

/**
 * The A2A front door (docs/a2a.md): other agents reach this one through the Agent2Agent protocol.
 * GET /.well-known/agent-card.json is the card (v1.0 when the client sends `A2A-Version: 1.0`,
 * v0.3 otherwise); POST /a2a is JSON-RPC, read by the SDK's transport handlers over
 * AgentRequestHandler: a task is a turn, its context the conversation. Owners, limits and the
 * error statuses are the native API's.
 */
export function a2aFrontDoor(settings: A2ASettings, context: CardContext): FrontDoor {
  async function handle(request: HttpRequest, services: FrontDoorServices): Promise<StreamingHttpResponse> {
    const card = agentCard(settings, context, request);
    switch (matchA2ARoute(request.method, request.path)) {
      case 'agentCard': {
        const asked = request.headers['a2a-version']?.trim();
        const body = asked && !asked.startsWith('0.3') ? AgentCard.toJSON(card) : legacyAgentCard(card);
        return json(200, body, { vary: 'A2A-Version', 'cache-control': 'no-cache' });
      }
      case 'jsonRpc':
        return answerJsonRpc(request, {
          handler: new AgentRequestHandler(services.agent, services.logger, request, card),
          card,
          logger: services.logger,
          maxBodyBytes: services.maxBodyBytes,
          ...(services.heartbeatMs === undefined ? {} : { heartbeatMs: services.heartbeatMs }),
        });
    }
  }

  return {
    name: 'a2a',
    matches: (request) => isA2APath(request.path),
    handle,
    errorResponse: a2aErrorResponse,
    asksForStream: (request) => request.method.toUpperCase() === 'POST' && /"method"\s*:\s*"(message\/stream|SendStreamingMessage)"/.test(request.body ?? ''),
  };
}
