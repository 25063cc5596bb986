/**
 * A test double of an OAuth-protected MCP deployment, on two localhost ports, from the MCP SDK's
 * own server parts: an authorization server (the SDK's mcpAuthRouter: metadata, /authorize that
 * approves at once as a person would, /token with PKCE checks, dynamic registration) with short or
 * revocable tokens and rotating refresh tokens, plus client_credentials; and a resource server (an
 * MCP server behind the SDK's requireBearerAuth, its protected resource metadata, and a step-up
 * tool that needs more scope). It records what each side saw, for tests to assert on.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { serveStatelessMcp } from './stateless-mcp-route.ts';
import { mcpAuthMetadataRouter, mcpAuthRouter, createOAuthMetadata } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export const READ_SCOPE = 'notes:read';
export const WRITE_SCOPE = 'notes:write';

export interface OAuthServerDoubleOptions {
  /** Lifetime the token responses announce (and the resource server enforces). Default 3600. */
  accessTokenSeconds?: number;
  /** Clients registered out of band (pre-registered, client_credentials). */
  clients?: { clientId: string; clientSecret: string }[];
  /** Changes the authorization server metadata it serves (an attacker's or a broken server's). */
  tamperMetadata?: (metadata: Record<string, unknown>, issuer: string) => Record<string, unknown>;
  /** The authorization servers its protected resource metadata names, instead of its own. */
  authorizationServers?: string[];
  /** RFC 9207: advertise authorization_response_iss_parameter_supported and send `iss` with each authorization response. */
  issParameter?: boolean;
  /** The MCP endpoint answers initialize and notifications without a token (as the conformance suite's servers do). */
  openInitialize?: boolean;
  /** The scopes_supported of its protected resource metadata (default: notes:read, what its challenges name). */
  resourceScopes?: string[];
}

export type RecordedEvent =
  | { side: 'token'; grant: string; clientId?: string; scope?: string; resource?: string }
  | { side: 'mcp'; status: number; method?: string; tool?: string; token?: string }
  /** A dynamic registration, with the application_type it asked for (SEP-837; the SDK's handler drops the field). */
  | { side: 'register'; clientId: string; applicationType?: string };

export interface OAuthServerDouble {
  /** The MCP endpoint (Streamable HTTP). */
  url: string;
  /** The same MCP server over legacy HTTP+SSE (a resource of its own). */
  sseUrl: string;
  issuer: string;
  events: RecordedEvent[];
  /** Every token and code this server handed out, so tests can check none reached a log. */
  secretsIssued: string[];
  /** From now on its protected resource metadata names these authorization servers (the server moved, SEP-2352). */
  nameAuthorizationServers(servers: string[]): void;
  /** Makes every access token issued so far invalid before it expires (the next MCP request gets 401). */
  revokeAccessTokens(): void;
  close(): Promise<void>;
}

interface IssuedToken {
  clientId: string;
  scopes: string[];
  expiresAt: number;
  resource?: string;
  revoked?: boolean;
}

export async function startOAuthServerDouble(options: OAuthServerDoubleOptions = {}): Promise<OAuthServerDouble> {
  const lifetimeSeconds = options.accessTokenSeconds ?? 3600;
  const events: RecordedEvent[] = [];
  const secretsIssued: string[] = [];
  const clients = new Map<string, OAuthClientInformationFull>();
  for (const client of options.clients ?? []) {
    clients.set(client.clientId, { client_id: client.clientId, client_secret: client.clientSecret, redirect_uris: ['http://localhost/unused'] });
  }
  const codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  const accessTokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, IssuedToken>();

  /** What the registration being handled asked for, read before the SDK's handler strips it. */
  let registrationApplicationType: string | undefined;
  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: (clientId) => clients.get(clientId),
    registerClient: (client) => {
      const registered = client as OAuthClientInformationFull;
      clients.set(registered.client_id, registered);
      events.push({ side: 'register', clientId: registered.client_id, ...(registrationApplicationType ? { applicationType: registrationApplicationType } : {}) });
      if (registered.client_secret) secretsIssued.push(registered.client_secret);
      return registered;
    },
  };

  const issue = (clientId: string, scopes: string[], resource: string | undefined): OAuthTokens => {
    const accessToken = `access-${randomUUID()}`;
    const refreshToken = `refresh-${randomUUID()}`;
    const grant = { clientId, scopes, expiresAt: Date.now() + lifetimeSeconds * 1000, ...(resource ? { resource } : {}) };
    accessTokens.set(accessToken, grant);
    refreshTokens.set(refreshToken, grant);
    secretsIssued.push(accessToken, refreshToken);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: lifetimeSeconds, scope: scopes.join(' '), refresh_token: refreshToken };
  };

  const provider: OAuthServerProvider = {
    clientsStore,
    async authorize(client, params, response) {
      // The person approves at once.
      const code = randomUUID();
      codes.set(code, { clientId: client.client_id, params });
      secretsIssued.push(code);
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      if (options.issParameter) target.searchParams.set('iss', issuer.href);
      response.redirect(target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const entry = codes.get(code);
      if (!entry) throw new InvalidGrantError('unknown authorization code');
      return entry.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const entry = codes.get(code);
      if (!entry || entry.clientId !== client.client_id) throw new InvalidGrantError('unknown authorization code');
      codes.delete(code);
      return issue(client.client_id, entry.params.scopes ?? [], entry.params.resource?.href);
    },
    async exchangeRefreshToken(client, refreshToken) {
      const grant = refreshTokens.get(refreshToken);
      if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
      // Rotation: a refresh token works once.
      refreshTokens.delete(refreshToken);
      return issue(client.client_id, grant.scopes, grant.resource);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const grant = accessTokens.get(token);
      if (!grant || grant.revoked || grant.expiresAt < Date.now()) throw new InvalidTokenError('invalid or expired token');
      return {
        token,
        clientId: grant.clientId,
        scopes: grant.scopes,
        expiresAt: Math.floor(grant.expiresAt / 1000),
        ...(grant.resource ? { resource: new URL(grant.resource) } : {}),
      };
    },
  };

  // --- the authorization server
  const authorization = express();
  const authorizationListener = await listen(authorization);
  const issuer = new URL(`http://localhost:${port(authorizationListener)}/`);
  authorization.use(express.urlencoded({ extended: false }));
  authorization.post('/token', (request: Request, response: Response, next: NextFunction) => {
    const body = request.body as Record<string, string>;
    events.push({ side: 'token', grant: body['grant_type'] ?? '', ...(body['client_id'] ? { clientId: body['client_id'] } : {}), ...(body['scope'] ? { scope: body['scope'] } : {}), ...(body['resource'] ? { resource: body['resource'] } : {}) });
    if (body['grant_type'] !== 'client_credentials') return next();
    // The SDK's token handler knows no client_credentials: answer it here (client_secret_post or basic).
    const [basicId, basicSecret] = Buffer.from((request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString().split(':').map(decodeURIComponent);
    const clientId = body['client_id'] ?? basicId ?? '';
    const client = clients.get(clientId);
    if (!client || client.client_secret !== (body['client_secret'] ?? basicSecret)) {
      response.status(401).json({ error: 'invalid_client', error_description: 'client authentication failed' });
      return;
    }
    response.json(issue(clientId, body['scope']?.split(' ') ?? [READ_SCOPE], body['resource']));
  });
  authorization.post('/register', express.json(), (request: Request, _response: Response, next: NextFunction) => {
    const applicationType = (request.body as { application_type?: unknown } | undefined)?.application_type;
    registrationApplicationType = typeof applicationType === 'string' ? applicationType : undefined;
    next();
  });
  const rateLimit = { rateLimit: false } as const;
  const servedMetadata = () => {
    const metadata: Record<string, unknown> = { ...createOAuthMetadata({ provider, issuerUrl: issuer, scopesSupported: [READ_SCOPE, WRITE_SCOPE, 'offline_access'] }) };
    if (options.issParameter) metadata['authorization_response_iss_parameter_supported'] = true;
    return options.tamperMetadata ? options.tamperMetadata(metadata, issuer.href) : metadata;
  };
  if (options.tamperMetadata || options.issParameter) {
    authorization.get('/.well-known/oauth-authorization-server', (_request: Request, response: Response) => {
      response.json(servedMetadata());
    });
  }
  authorization.use(
    mcpAuthRouter({
      provider,
      issuerUrl: issuer,
      scopesSupported: [READ_SCOPE, WRITE_SCOPE, 'offline_access'],
      authorizationOptions: rateLimit,
      tokenOptions: rateLimit,
      clientRegistrationOptions: rateLimit,
    }),
  );

  // --- the resource server: an MCP server
  const resource = express();
  const resourceListener = await listen(resource);
  const url = `http://localhost:${port(resourceListener)}/mcp`;
  const resourceMetadataUrl = `http://localhost:${port(resourceListener)}/.well-known/oauth-protected-resource/mcp`;
  const oauthMetadata = createOAuthMetadata({ provider, issuerUrl: issuer });
  let authorizationServers = options.authorizationServers;
  resource.get('/.well-known/oauth-protected-resource/mcp', (_request: Request, response: Response, next: NextFunction) => {
    if (!authorizationServers) return next();
    response.json({ resource: url, authorization_servers: authorizationServers, scopes_supported: options.resourceScopes ?? [READ_SCOPE] });
  });
  resource.use(mcpAuthMetadataRouter({ oauthMetadata, resourceServerUrl: new URL(url), scopesSupported: options.resourceScopes ?? [READ_SCOPE] }));
  resource.use(express.json());
  resource.use('/mcp', (request: Request, response: Response, next: NextFunction) => {
    const body = request.body as { method?: string; params?: { name?: string } } | undefined;
    response.on('finish', () => {
      const token = request.headers.authorization?.replace(/^Bearer /, '');
      events.push({
        side: 'mcp',
        status: response.statusCode,
        ...(body?.method ? { method: body.method } : {}),
        ...(body?.params?.name ? { tool: body.params.name } : {}),
        ...(token ? { token } : {}),
      });
    });
    next();
  });
  const bearer = requireBearerAuth({ verifier: provider, requiredScopes: [READ_SCOPE], resourceMetadataUrl, expectedResource: new URL(url) });
  resource.use('/mcp', (request: Request, response: Response, next: NextFunction) => {
    const method = (request.body as { method?: string } | undefined)?.method ?? '';
    if (options.openInitialize && (method === 'initialize' || method.startsWith('notifications/'))) return next();
    return bearer(request, response, next);
  });
  resource.post('/mcp', (request: Request, response: Response, next: NextFunction) => {
    // Step-up: writing needs a scope the first login did not ask for.
    const body = request.body as { method?: string; params?: { name?: string } };
    if (body.method === 'tools/call' && body.params?.name === 'write-note' && !request.auth?.scopes.includes(WRITE_SCOPE)) {
      response
        .status(403)
        .set('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${WRITE_SCOPE}", resource_metadata="${resourceMetadataUrl}"`)
        .json({ error: 'insufficient_scope' });
      return;
    }
    next();
  });
  serveStatelessMcp(resource, () => notesServer());

  // The same server over legacy SSE: GET /sse opens the stream, POST /messages carries requests.
  const sseUrl = `http://localhost:${port(resourceListener)}/sse`;
  const sseMetadataUrl = `http://localhost:${port(resourceListener)}/.well-known/oauth-protected-resource/sse`;
  resource.use(mcpAuthMetadataRouter({ oauthMetadata, resourceServerUrl: new URL(sseUrl), scopesSupported: [READ_SCOPE] }));
  const sseAuthorization = requireBearerAuth({ verifier: provider, requiredScopes: [READ_SCOPE], resourceMetadataUrl: sseMetadataUrl, expectedResource: new URL(sseUrl) });
  const sessions = new Map<string, SSEServerTransport>();
  resource.get('/sse', sseAuthorization, async (_request: Request, response: Response) => {
    const transport = new SSEServerTransport('/messages', response);
    sessions.set(transport.sessionId, transport);
    response.on('close', () => sessions.delete(transport.sessionId));
    await notesServer().connect(transport);
  });
  resource.post('/messages', sseAuthorization, async (request: Request, response: Response) => {
    const transport = sessions.get(String(request.query['sessionId']));
    if (!transport) {
      response.status(404).end();
      return;
    }
    await transport.handlePostMessage(request, response, request.body);
  });

  return {
    url,
    sseUrl,
    issuer: issuer.href,
    events,
    secretsIssued,
    nameAuthorizationServers(servers) {
      authorizationServers = servers;
    },
    revokeAccessTokens() {
      for (const grant of accessTokens.values()) grant.revoked = true;
    },
    async close() {
      await Promise.all([close(authorizationListener), close(resourceListener)]);
    },
  };
}

function notesServer(): McpServer {
  const server = new McpServer({ name: 'oauth-protected-notes', version: '1.0.0' });
  server.registerTool('whoami', { description: 'The scopes of the caller\'s token' }, async (extra) => ({
    content: [{ type: 'text', text: `scopes: ${extra.authInfo?.scopes.join(' ') ?? '(none)'}` }],
  }));
  server.registerTool('write-note', { description: 'Needs notes:write' }, async () => ({ content: [{ type: 'text', text: 'written' }] }));
  return server;
}

function listen(app: express.Express): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(server)));
  });
}

function port(server: HttpServer): number {
  return (server.address() as AddressInfo).port;
}

function close(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** An endpoint that answers nothing useful and records every request: what a hostile metadata document points at. */
export interface RecordingEndpoint {
  url: string;
  requests: Array<{ method: string; path: string; body: string }>;
  close(): Promise<void>;
}

export async function startRecordingEndpoint(): Promise<RecordingEndpoint> {
  const requests: RecordingEndpoint['requests'] = [];
  const app = express();
  app.use(express.text({ type: '*/*' }));
  app.all('/{*path}', (request: Request, response: Response) => {
    requests.push({ method: request.method, path: request.path, body: typeof request.body === 'string' ? request.body : '' });
    response.status(404).json({ error: 'not_found' });
  });
  const listener = await listen(app);
  return { url: `http://127.0.0.1:${port(listener)}`, requests, close: () => close(listener) };
}
