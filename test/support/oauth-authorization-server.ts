/**
 * A local OAuth 2.1 authorization server for per-user connections (docs/users-own-accounts.md),
 * built from the MCP SDK's own server parts (mcpAuthRouter): metadata (RFC 8414), dynamic client
 * registration (RFC 7591), /authorize that consents at once for the person the test chooses,
 * /token with the PKCE check (S256), refresh tokens that rotate (each works once), and revocation
 * (RFC 7009). It records what it saw, for tests to assert on.
 *
 * How to use it:
 *
 *   const authorization = await startOAuthAuthorizationServer({ accessTokenSeconds: 3600 });
 *   const mcp = await startPerUserMcpServer({ authorization, notes: { alice: ['a1'], bob: ['b1'] } });
 *   // agent.yml: mcpServers.crm: { url: mcp.url, auth: { mode: per-user } }
 *   // Who consents: `login_hint=alice` on the authorization URL (append it before opening the URL),
 *   // or else `authorization.user`, which a browser test sets before it follows the connect link:
 *   authorization.user = 'alice';
 *   // A refusal instead of consent (the provider redirects back with error=access_denied):
 *   authorization.refuseNext = true;
 *   // Tokens issued so far stop working (the MCP server answers 401; refresh tokens still work):
 *   authorization.expireAccessTokens();
 *   // A user withdraws consent at the provider (access and refresh tokens end):
 *   authorization.endGrantsOf('alice');
 *   await authorization.close();
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import express, { type Request, type Response } from 'express';
import { createOAuthMetadata, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export const PER_USER_SCOPES = ['crm:read', 'offline_access'];

export interface OAuthAuthorizationServerOptions {
  /** Lifetime of access tokens, as announced (expires_in) and enforced by verify(). Default 3600. */
  accessTokenSeconds?: number;
}

/** What one grant (a consent, and every refresh after it) stands for. */
export interface Grant {
  user: string;
  clientId: string;
  scopes: string[];
  /** RFC 8707: the MCP server the token is for. */
  resource?: string;
  expiresAt: number;
}

export type AuthorizationEvent =
  | { kind: 'register'; clientId: string; redirectUris: string[] }
  | { kind: 'authorize'; user: string; clientId: string; redirectUri: string; codeChallengeMethod: 'S256' }
  | { kind: 'refused'; clientId: string }
  | { kind: 'token'; grant: 'authorization_code' | 'refresh_token'; user: string; clientId: string; resource?: string }
  | { kind: 'refresh-refused'; reason: string }
  | { kind: 'revoke'; user: string | undefined; tokenType: 'access_token' | 'refresh_token' | 'unknown' };

export interface OAuthAuthorizationServer {
  issuer: string;
  /** Its metadata, as served at /.well-known/oauth-authorization-server. */
  metadata: OAuthMetadata;
  /** The person who consents when the authorization request carries no login_hint. */
  user: string | undefined;
  /** The next authorization is refused (redirect with error=access_denied) instead of consented. */
  refuseNext: boolean;
  events: AuthorizationEvent[];
  /** Every code and token handed out, so tests can look for them where they must not be. */
  secretsIssued: string[];
  /** The grant an access token stands for, while it is valid (not expired, not revoked). */
  verify(accessToken: string): Grant | undefined;
  /** Every access token issued so far stops working now (refresh tokens keep working). */
  expireAccessTokens(): void;
  /** The user withdrew consent at the provider: their access and refresh tokens all stop working. */
  endGrantsOf(user: string): void;
  close(): Promise<void>;
}

export async function startOAuthAuthorizationServer(options: OAuthAuthorizationServerOptions = {}): Promise<OAuthAuthorizationServer> {
  const lifetimeSeconds = options.accessTokenSeconds ?? 3600;
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { clientId: string; user: string; params: AuthorizationParams }>();
  const accessTokens = new Map<string, Grant & { revoked?: boolean }>();
  const refreshTokens = new Map<string, Grant>();

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: (clientId) => clients.get(clientId),
    registerClient: (client) => {
      const registered = client as OAuthClientInformationFull;
      clients.set(registered.client_id, registered);
      if (registered.client_secret) double.secretsIssued.push(registered.client_secret);
      double.events.push({ kind: 'register', clientId: registered.client_id, redirectUris: registered.redirect_uris.map(String) });
      return registered;
    },
  };

  const issue = (grant: Omit<Grant, 'expiresAt'>): OAuthTokens => {
    const accessToken = `access-${grant.user}-${randomUUID()}`;
    const refreshToken = `refresh-${grant.user}-${randomUUID()}`;
    const issued = { ...grant, expiresAt: Date.now() + lifetimeSeconds * 1000 };
    accessTokens.set(accessToken, issued);
    refreshTokens.set(refreshToken, issued);
    double.secretsIssued.push(accessToken, refreshToken);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: lifetimeSeconds, scope: grant.scopes.join(' '), refresh_token: refreshToken };
  };

  const provider: OAuthServerProvider = {
    clientsStore,
    async authorize(client, params, response) {
      const target = new URL(params.redirectUri);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      if (double.refuseNext) {
        double.refuseNext = false;
        double.events.push({ kind: 'refused', clientId: client.client_id });
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('error_description', 'The user refused access.');
        response.redirect(target.href);
        return;
      }
      const request = response.req as Request;
      const hint = (request.query['login_hint'] ?? (request.body as Record<string, unknown> | undefined)?.['login_hint']) as string | undefined;
      const user = hint ?? double.user;
      if (!user) {
        response.status(400).type('text/plain').send('No user: pass login_hint or set the test server\'s user.');
        return;
      }
      // The person consents at once.
      const code = `code-${randomUUID()}`;
      codes.set(code, { clientId: client.client_id, user, params });
      double.secretsIssued.push(code);
      double.events.push({ kind: 'authorize', user, clientId: client.client_id, redirectUri: params.redirectUri, codeChallengeMethod: 'S256' });
      target.searchParams.set('code', code);
      response.redirect(target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const entry = codes.get(code);
      if (!entry) throw new InvalidGrantError('unknown authorization code');
      return entry.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code, _verifier, redirectUri, resource) {
      const entry = codes.get(code);
      if (!entry || entry.clientId !== client.client_id) throw new InvalidGrantError('unknown authorization code');
      if (redirectUri !== undefined && redirectUri !== entry.params.redirectUri) throw new InvalidGrantError('redirect_uri differs from the authorization request');
      codes.delete(code);
      const granted = resource?.href ?? entry.params.resource?.href;
      double.events.push({ kind: 'token', grant: 'authorization_code', user: entry.user, clientId: client.client_id, ...(granted ? { resource: granted } : {}) });
      return issue({ user: entry.user, clientId: client.client_id, scopes: entry.params.scopes ?? [], ...(granted ? { resource: granted } : {}) });
    },
    async exchangeRefreshToken(client, refreshToken) {
      const grant = refreshTokens.get(refreshToken);
      if (!grant || grant.clientId !== client.client_id) {
        double.events.push({ kind: 'refresh-refused', reason: grant ? 'another client' : 'unknown, used or revoked refresh token' });
        throw new InvalidGrantError('unknown refresh token');
      }
      // Rotation: a refresh token works once.
      refreshTokens.delete(refreshToken);
      double.events.push({ kind: 'token', grant: 'refresh_token', user: grant.user, clientId: client.client_id, ...(grant.resource ? { resource: grant.resource } : {}) });
      return issue({ user: grant.user, clientId: grant.clientId, scopes: grant.scopes, ...(grant.resource ? { resource: grant.resource } : {}) });
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const grant = double.verify(token);
      if (!grant) throw new InvalidTokenError('invalid or expired token');
      return { token, clientId: grant.clientId, scopes: grant.scopes, expiresAt: Math.floor(grant.expiresAt / 1000), extra: { user: grant.user } };
    },
    async revokeToken(client, request) {
      const access = accessTokens.get(request.token);
      const refresh = refreshTokens.get(request.token);
      const grant = access ?? refresh;
      if (grant && grant.clientId === client.client_id) {
        // Revoking either token of a grant ends the whole grant (RFC 7009 §2.1 allows it).
        for (const [token, other] of accessTokens) if (other.user === grant.user && other.clientId === grant.clientId) accessTokens.set(token, { ...other, revoked: true });
        for (const [token, other] of refreshTokens) if (other.user === grant.user && other.clientId === grant.clientId) refreshTokens.delete(token);
      }
      double.events.push({ kind: 'revoke', user: grant?.user, tokenType: access ? 'access_token' : refresh ? 'refresh_token' : 'unknown' });
    },
  };

  const app = express();
  const listener = await listen(app);
  const issuer = new URL(`http://localhost:${(listener.address() as AddressInfo).port}/`);
  const rateLimit = { rateLimit: false } as const;
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: issuer,
      scopesSupported: PER_USER_SCOPES,
      authorizationOptions: rateLimit,
      tokenOptions: rateLimit,
      clientRegistrationOptions: rateLimit,
      revocationOptions: rateLimit,
    }),
  );
  app.use((_request: Request, response: Response) => {
    response.status(404).json({ error: 'not_found' });
  });

  const double: OAuthAuthorizationServer = {
    issuer: issuer.href,
    metadata: createOAuthMetadata({ provider, issuerUrl: issuer, scopesSupported: PER_USER_SCOPES }),
    user: undefined,
    refuseNext: false,
    events: [],
    secretsIssued: [],
    verify(accessToken) {
      const grant = accessTokens.get(accessToken);
      if (!grant || grant.revoked || grant.expiresAt <= Date.now()) return undefined;
      const { revoked: _revoked, ...rest } = grant;
      return rest;
    },
    expireAccessTokens() {
      for (const [token, grant] of accessTokens) accessTokens.set(token, { ...grant, revoked: true });
    },
    endGrantsOf(user) {
      for (const [token, grant] of accessTokens) if (grant.user === user) accessTokens.set(token, { ...grant, revoked: true });
      for (const [token, grant] of refreshTokens) if (grant.user === user) refreshTokens.delete(token);
    },
    close: () => close(listener),
  };
  return double;
}

function listen(app: express.Express): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(server)));
  });
}

function close(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
