import { createMcpHandler, McpServer, type McpHttpHandler } from '@modelcontextprotocol/server';
import { NotFoundError } from '../../core/errors.ts';
import type { StreamingHttpResponse } from '../../http/event-stream.ts';
import type { FrontDoor, FrontDoorServices } from '../../http/front-door.ts';
import { routeFor } from '../../http/route-method.ts';
import { traceOf } from '../../http/trace-of.ts';
import { callerTokenOf } from '../../http/caller-token-of.ts';
import type { HttpRequest } from '../../http/types.ts';
import { registerAskTool, type Caller } from './ask-tool.ts';
import { mcpErrorResponse } from './errors.ts';
import { isMetadataPath, metadataResponse, unauthenticatedResponse, type ProtectedResource } from './protected-resource.ts';
import { MCP_PATH, type McpServerDoorSettings } from './settings.ts';
import { fromWebResponse, toWebRequest } from './web-exchange.ts';

export type { McpServerDoorSettings } from './settings.ts';

const SERVER_INFO = { name: 'mcp-agent-service', version: '0.1.0' };

/**
 * The agent as an MCP server at /mcp (agent.yml `mcpServerDoor`): Streamable HTTP, stateless, with
 * the SDK's own handler. Clients on the 2026-07-28 revision are served per request with no session;
 * 2025 clients statelessly too (initialize, then each request on its own). Every request gets a
 * fresh server that knows its caller (the owner the auth layer set, the deadline, the trace), so
 * owners, budgets and approvals are those of the native API: the tool only calls the agent.
 */
export function mcpServerFrontDoor(settings: McpServerDoorSettings, protectedResource: Partial<ProtectedResource> = {}): FrontDoor {
  // Under Cognito (lib/front-doors/configured.ts): the RFC 9728 metadata, served to anyone.
  const resource = protectedResource.authorizationServer === undefined ? undefined : { authorizationServer: protectedResource.authorizationServer };
  // Built on the first request, when the deployment's services are known; the same for every request after.
  let handler: McpHttpHandler | undefined;

  function handlerFor(services: FrontDoorServices): McpHttpHandler {
    handler ??= createMcpHandler(
      (context) => {
        const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} } });
        registerAskTool(server, services, (context.authInfo?.extra?.['caller'] ?? {}) as Caller, settings);
        return server;
      },
      {
        legacy: 'stateless',
        maxRequestBodySize: services.maxBodyBytes,
        // Where the entry can stream, every answer is a stream with a comment each heartbeat: API
        // Gateway cuts a response that stays quiet for 5 minutes, and a turn may take longer with no
        // progress to send. Where it cannot (the buffered fallback), JSON unless progress comes first.
        responseMode: services.heartbeatMs === undefined ? 'auto' : 'sse',
        keepAliveMs: services.heartbeatMs ?? 0,
        onerror: (error) => services.logger.warn('mcp server door: request refused', { error: error.message }),
      },
    );
    return handler;
  }

  async function handle(request: HttpRequest, services: FrontDoorServices): Promise<StreamingHttpResponse> {
    if (resource && isMetadataPath(request.path)) {
      routeFor({ GET: 'metadata' }, request.method, request.path);
      return metadataResponse(request, resource);
    }
    if (request.path.replace(/\/+$/, '') !== MCP_PATH) throw new NotFoundError('route_not_found', `There is no ${request.path}: the MCP server is at POST ${MCP_PATH}.`);
    // Stateless: no session to open a stream on (GET) or to end (DELETE).
    routeFor({ POST: 'message' }, request.method, MCP_PATH);
    // API Gateway's authorizer turns such a request away before it gets here; this answers it where none does.
    if (resource && !request.owner) return unauthenticatedResponse(request);
    const caller: Caller = {
      ...(request.owner ? { owner: request.owner } : {}),
      ...(request.deadlineAt === undefined ? {} : { deadlineAt: request.deadlineAt }),
      ...traceOf(request),
      ...callerTokenOf(request),
    };
    // The caller travels as the SDK's authInfo, the way it hands a request's identity to the server it builds.
    const authInfo = { token: '', clientId: request.owner ?? 'anonymous', scopes: [], extra: { caller } };
    return fromWebResponse(await handlerFor(services).fetch(toWebRequest(request), { authInfo }));
  }

  return {
    name: 'mcp-server',
    matches: (request) => request.path === MCP_PATH || request.path.startsWith(`${MCP_PATH}/`) || (resource !== undefined && isMetadataPath(request.path)),
    servesAnyone: (request) => resource !== undefined && isMetadataPath(request.path),
    handle,
    errorResponse: mcpErrorResponse,
  };
}
