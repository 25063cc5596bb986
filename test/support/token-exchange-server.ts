/**
 * A test double of an identity system whose MCP server acts as the user: a token endpoint that
 * takes RFC 8693 token exchanges (it checks every parameter and the client's Basic credentials,
 * and issues a token naming the subject and the audience it is for), and an MCP server (the SDK's,
 * behind requireBearerAuth) that accepts only such tokens for its own URL and shows each user
 * their own notes. It records what each side saw, for tests to assert on.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { serveStatelessMcp } from './stateless-mcp-route.ts';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export interface TokenExchangeDoubleOptions {
  /** The callers' own tokens (what they present to the service) and whom each names. */
  users: Record<string, string>;
  /** Subjects whose exchange the endpoint refuses (invalid_grant). */
  refused?: string[];
  clientId: string;
  /** Absent: a public client, named by its client_id parameter. */
  clientSecret?: string;
  /** A careless endpoint that quotes the subject token in its refusals (the client must not pass it on). */
  quotesSubjectInRefusals?: boolean;
  /** Lifetime of an exchanged token. Default 3600. */
  expiresInSeconds?: number;
  /** Each user's notes, shown by the MCP server's my_notes tool. */
  notes: Record<string, string[]>;
}

export interface TokenExchangeRequest {
  body: Record<string, string>;
  /** The client the Basic credentials named, or undefined. */
  clientId?: string;
  status: number;
}

export interface TokenExchangeDouble {
  /** The MCP endpoint (Streamable HTTP). */
  url: string;
  issuer: string;
  tokenEndpoint: string;
  exchanges: TokenExchangeRequest[];
  /** Who the MCP server saw on each request: the subject of its bearer token, and the method. */
  mcpRequests: Array<{ subject?: string; audience?: string; method?: string; status: number }>;
  /** Every token the endpoint issued, so tests can check none reached a log or a stored turn. */
  issued: string[];
  close(): Promise<void>;
}

export async function startTokenExchangeDouble(options: TokenExchangeDoubleOptions): Promise<TokenExchangeDouble> {
  const exchanges: TokenExchangeRequest[] = [];
  const mcpRequests: TokenExchangeDouble['mcpRequests'] = [];
  const issued: string[] = [];
  const tokens = new Map<string, IssuedGrant>();

  const identity = express();
  identity.use(express.urlencoded({ extended: false }));
  const identityListener = await listen(identity);
  const issuer = `http://localhost:${port(identityListener)}`;
  const tokenEndpoint = `${issuer}/token`;
  const resource = express();
  const resourceListener = await listen(resource);
  const url = `http://localhost:${port(resourceListener)}/mcp`;

  identity.get('/.well-known/oauth-authorization-server', (_request, response) => {
    response.json({
      issuer,
      token_endpoint: tokenEndpoint,
      authorization_endpoint: `${issuer}/authorize`,
      response_types_supported: ['code'],
      grant_types_supported: [TOKEN_EXCHANGE_GRANT],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
    });
  });
  identity.post('/token', (request: Request, response: Response) => {
    const body = request.body as Record<string, string>;
    const client = options.clientSecret === undefined ? (body.client_id ? { id: body.client_id, secret: undefined } : undefined) : basicClient(request.headers.authorization);
    const refuse = (status: number, error: string, description: string) => {
      exchanges.push({ body, ...(client ? { clientId: client.id } : {}), status });
      response.status(status).json({ error, error_description: options.quotesSubjectInRefusals ? `${description} (subject_token=${body.subject_token})` : description });
    };
    if (!client || client.id !== options.clientId || client.secret !== options.clientSecret) return refuse(401, 'invalid_client', 'the client did not authenticate');
    if (body.grant_type !== TOKEN_EXCHANGE_GRANT) return refuse(400, 'unsupported_grant_type', `expected ${TOKEN_EXCHANGE_GRANT}`);
    if (body.subject_token_type !== ACCESS_TOKEN_TYPE) return refuse(400, 'invalid_request', 'subject_token_type must be an access token');
    if (body.requested_token_type !== ACCESS_TOKEN_TYPE) return refuse(400, 'invalid_request', 'requested_token_type must be an access token');
    if (body.resource !== url) return refuse(400, 'invalid_target', `resource must be ${url}`);
    const subject = body.subject_token === undefined ? undefined : options.users[body.subject_token];
    if (subject === undefined) return refuse(400, 'invalid_grant', 'the subject token is not one this identity provider issued');
    if (options.refused?.includes(subject)) return refuse(400, 'invalid_grant', `${subject} may not use this resource`);
    const token = `exchanged-${randomUUID()}`;
    const expiresIn = options.expiresInSeconds ?? 3600;
    tokens.set(token, { subject, audience: body.resource, expiresAt: Date.now() + expiresIn * 1000 });
    issued.push(token);
    exchanges.push({ body, clientId: client.id, status: 200 });
    response.json({ access_token: token, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: expiresIn });
  });

  // RFC 9728: the MCP server names its authorization server, for clients that discover the token endpoint.
  mountNotesServer(resource, url, tokens, mcpRequests, options.notes, issuer);

  return {
    url,
    issuer,
    tokenEndpoint,
    exchanges,
    mcpRequests,
    issued,
    async close() {
      await Promise.all([close(identityListener), close(resourceListener)]);
    },
  };
}

/** A token the identity system issued for one subject and one audience (an MCP server's URL). */
export interface IssuedGrant {
  subject: string;
  audience: string;
  expiresAt: number;
}

/**
 * The MCP server of a double: the SDK's server behind requireBearerAuth, taking only the tokens in
 * `tokens` issued for its own URL, recording whom each request was for, and showing each user
 * their own notes. It also publishes its protected resource metadata (naming `authorizationServer`).
 */
export function mountNotesServer(resource: express.Express, url: string, tokens: Map<string, IssuedGrant>, mcpRequests: TokenExchangeDouble['mcpRequests'], notes: Record<string, string[]>, authorizationServer?: string): void {
  if (authorizationServer) {
    resource.get('/.well-known/oauth-protected-resource/mcp', (_request, response) => {
      response.json({ resource: url, authorization_servers: [authorizationServer] });
    });
  }
  const verifier = {
    async verifyAccessToken(token: string) {
      const grant = tokens.get(token);
      if (!grant || grant.expiresAt < Date.now()) throw new InvalidTokenError('unknown or expired token');
      return { token, clientId: 'client', scopes: [], expiresAt: Math.floor(grant.expiresAt / 1000), resource: new URL(grant.audience), extra: { subject: grant.subject } };
    },
  };
  resource.use(express.json());
  resource.use('/mcp', (request: Request, response: Response, next: NextFunction) => {
    response.on('finish', () => {
      const token = request.headers.authorization?.replace(/^Bearer /, '');
      const grant = token === undefined ? undefined : tokens.get(token);
      const method = (request.body as { method?: string } | undefined)?.method;
      mcpRequests.push({ status: response.statusCode, ...(grant ? { subject: grant.subject, audience: grant.audience } : {}), ...(method ? { method } : {}) });
    });
    next();
  });
  resource.use('/mcp', requireBearerAuth({ verifier, expectedResource: new URL(url) }));
  serveStatelessMcp(resource, () => notesServer(notes));
}

/** The tools answer with what the token says: the subject it names, and that subject's own notes. */
function notesServer(notes: Record<string, string[]>): McpServer {
  const server = new McpServer({ name: 'per-user-notes', version: '1.0.0' });
  const subjectOf = (extra: { authInfo?: { extra?: Record<string, unknown> } }) => String(extra.authInfo?.extra?.['subject'] ?? '(nobody)');
  server.registerTool('whoami', { description: 'The user this server sees', annotations: { readOnlyHint: true } }, async (extra) => ({
    content: [{ type: 'text', text: `you are ${subjectOf(extra)}` }],
  }));
  server.registerTool('my_notes', { description: 'The notes of the user this server sees', annotations: { readOnlyHint: true } }, async (extra) => ({
    content: [{ type: 'text', text: `notes of ${subjectOf(extra)}: ${(notes[subjectOf(extra)] ?? []).join('; ')}` }],
  }));
  return server;
}

export function basicClient(header: string | undefined): { id: string; secret: string } | undefined {
  const encoded = /^Basic (.+)$/.exec(header ?? '')?.[1];
  if (!encoded) return undefined;
  const [id, secret] = Buffer.from(encoded, 'base64').toString('utf8').split(':').map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
  return id === undefined || secret === undefined ? undefined : { id, secret };
}

export function listen(app: express.Express): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(server)));
  });
}

export function port(server: HttpServer): number {
  return (server.address() as AddressInfo).port;
}

export function close(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
