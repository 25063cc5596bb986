/**
 * A real MCP SDK server (Streamable HTTP, stateless) that serves each user their own data: every
 * request must carry a bearer token that the local authorization server
 * (oauth-authorization-server.ts) issued for this server (RFC 8707 resource), and the tools answer
 * with the data of the user the token was issued to. A request without a valid token gets 401 with
 * the WWW-Authenticate challenge naming its protected resource metadata (RFC 9728), which names the
 * authorization server.
 *
 * How to use it:
 *
 *   const authorization = await startOAuthAuthorizationServer();
 *   const crm = await startPerUserMcpServer({ authorization, notes: { alice: ['Call Acme'], bob: ['Pay rent'] } });
 *   // agent.yml: mcpServers: { crm: { url: <crm.url>, auth: { mode: per-user } } }
 *   // crm.events: every MCP request, its HTTP status, and the user whose token it carried.
 *
 * Tools: `list_notes` ("<user>'s notes: ...") and `whoami` ("<user>").
 */
import type { AddressInfo } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthMetadataRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { PER_USER_SCOPES, type OAuthAuthorizationServer } from './oauth-authorization-server.ts';

export interface PerUserMcpServerOptions {
  authorization: OAuthAuthorizationServer;
  /** Each user's own data. */
  notes: Record<string, string[]>;
}

export interface PerUserMcpEvent {
  status: number;
  method?: string;
  tool?: string;
  /** Whose token the request carried (none: no valid token). */
  user?: string;
  /** The bearer token as sent, for tests that check a token went only where it belongs. */
  token?: string;
}

export interface PerUserMcpServer {
  /** The MCP endpoint. */
  url: string;
  events: PerUserMcpEvent[];
  close(): Promise<void>;
}

export async function startPerUserMcpServer(options: PerUserMcpServerOptions): Promise<PerUserMcpServer> {
  const { authorization } = options;
  const events: PerUserMcpEvent[] = [];
  const app = express();
  const listener = await new Promise<HttpServer>((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(server)));
  });
  const origin = `http://localhost:${(listener.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  const resourceMetadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;

  app.use(mcpAuthMetadataRouter({ oauthMetadata: authorization.metadata, resourceServerUrl: new URL(url), scopesSupported: PER_USER_SCOPES }));
  app.use(express.json());
  app.use('/mcp', (request: Request, response: Response, next: NextFunction) => {
    const body = request.body as { method?: string; params?: { name?: string } } | undefined;
    const token = request.headers.authorization?.replace(/^Bearer /i, '');
    const user = token === undefined ? undefined : authorization.verify(token)?.user;
    response.on('finish', () => {
      events.push({
        status: response.statusCode,
        ...(body?.method ? { method: body.method } : {}),
        ...(body?.params?.name ? { tool: body.params.name } : {}),
        ...(user ? { user } : {}),
        ...(token ? { token } : {}),
      });
    });
    next();
  });
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const grant = authorization.verify(token);
      // A token issued for another resource (or for none) is not for this server.
      if (!grant || grant.resource !== url) throw new InvalidTokenError('invalid, expired or not issued for this server');
      return { token, clientId: grant.clientId, scopes: grant.scopes, expiresAt: Math.floor(grant.expiresAt / 1000), resource: new URL(url), extra: { user: grant.user } };
    },
  };
  app.use('/mcp', requireBearerAuth({ verifier, requiredScopes: [], resourceMetadataUrl, expectedResource: new URL(url) }));
  app.post('/mcp', async (request: Request, response: Response) => {
    const user = String(request.auth?.extra?.['user']);
    const server = notesServer(user, options.notes[user] ?? []);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, request.body);
  });
  app.all('/mcp', (_request: Request, response: Response) => {
    response.status(405).set('Allow', 'POST').end();
  });

  return {
    url,
    events,
    close: () =>
      new Promise((resolve) => {
        listener.closeAllConnections();
        listener.close(() => resolve());
      }),
  };
}

function notesServer(user: string, notes: string[]): McpServer {
  const server = new McpServer({ name: 'per-user-notes', version: '1.0.0' });
  server.registerTool('list_notes', { description: "Lists the signed-in user's notes.", annotations: { readOnlyHint: true } }, async () => ({
    content: [{ type: 'text', text: `${user}'s notes: ${notes.join('; ') || '(none)'}` }],
  }));
  server.registerTool('whoami', { description: 'The signed-in user.', annotations: { readOnlyHint: true } }, async () => ({
    content: [{ type: 'text', text: user }],
  }));
  return server;
}
