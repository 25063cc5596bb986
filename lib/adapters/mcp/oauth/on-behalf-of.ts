/**
 * Calls to one MCP server made with the caller's identity instead of the service's
 * (`auth.mode: token-exchange` or `enterprise-managed`). The caller's token (core/caller-token.ts,
 * in memory for the request only) is exchanged for a token whose audience is this server; each
 * HTTP request of the server's transport carries the token exchanged for the caller it is made
 * for. Exchanged tokens are kept in memory per (caller token, server) until shortly before they
 * expire, so a turn of many calls exchanges once.
 *
 *   token-exchange:      caller token ──RFC 8693──► token endpoint ──► access token (aud: server)
 *   enterprise-managed:  ID token ──RFC 8693──► identity provider ──► ID-JAG
 *                        ID-JAG ──jwt-bearer (RFC 7523)──► server's authorization server ──► access token
 *
 * The session's housekeeping without a caller (a ping from /health, the listing's refresh, ending
 * the session) carries the token of the last caller it was exchanged for; tools/call and
 * resources/read never run without their own caller's (the gateway asks `ready()` first).
 */
import { createHash } from 'node:crypto';
import { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { currentCallerToken } from '../../../core/caller-token.ts';
import type { Logger } from '../../../core/logger.ts';
import { clientAuthentication } from './client-auth.ts';
import { OAuthDestinations, type OAuthNetwork } from './destinations.ts';
import { McpOAuthError, redact } from './errors.ts';
import { idJagRequestParameters, jwtBearerParameters } from './id-jag.ts';
import type { OAuthOptions } from './options.ts';
import { ACCESS_TOKEN_TYPE, requestToken, tokenEndpointRefusalText, tokenExchangeParameters, TokenEndpointRefusal, type AuthenticateClient, type IssuedToken } from './token-exchange.ts';

/** What acting on the caller's behalf reads of a server's `auth` block (agent.yml's validated one fits). */
export interface OnBehalfOfOptions {
  mode: 'token-exchange' | 'enterprise-managed';
  tokenEndpoint?: string;
  audience?: string;
  /** The full RFC 8693 URN. */
  subjectTokenType: string;
  scopes?: readonly string[];
  identityProvider?: { issuer?: string; tokenEndpoint?: string; clientId?: string; clientSecret?: string };
  refreshBeforeExpirySeconds: number;
}

interface OnBehalfOfServer {
  name: string;
  url: string;
  auth: OnBehalfOfOptions;
  /** Names the client and how it authenticates at the token endpoint (its grant is not used). */
  oauth?: OAuthOptions;
}

/** How long an exchanged token is kept when the endpoint did not say when it expires. */
const UNSTATED_LIFETIME_MS = 5 * 60_000;
/** Callers whose exchanged tokens are kept at once, per server: the oldest goes first. */
const MAX_CACHED_CALLERS = 1000;

export class OnBehalfOf {
  private readonly server: OnBehalfOfServer;
  private readonly logger: Logger;
  private readonly destinations: OAuthDestinations;
  private readonly now: () => number;
  /** sha256 of the caller token → the token exchanged for it (in memory only, never stored). */
  private readonly exchanged = new Map<string, { token: string; renewAt: number }>();
  private readonly pending = new Map<string, Promise<string>>();
  private discovered: Promise<{ tokenEndpoint: string; metadata?: AuthorizationServerMetadata; issuer?: string }> | undefined;
  /** The token of the last caller: the session's housekeeping requests carry it (see above). */
  private lastToken: string | undefined;

  constructor(server: OnBehalfOfServer, options: { logger: Logger; network: OAuthNetwork; now?: () => number }) {
    this.server = server;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.destinations = new OAuthDestinations({ name: server.name, url: server.url, settings: { authorizationServer: server.oauth?.authorizationServer } as OAuthOptions }, options.network);
  }

  /** The exchanged token for the caller of the work under way; throws, worded for the model, when there is no caller token or the exchange is refused. */
  async ready(): Promise<string> {
    const caller = currentCallerToken();
    if (!caller) {
      throw new McpOAuthError(
        'mcp_caller_token_missing',
        this.server.name,
        `MCP server "${this.server.name}" is called on behalf of the signed-in user (auth.mode ${this.server.auth.mode}), and this turn has no user token: ` +
          'it runs without a caller who presented one (a queued or asynchronous turn, or a deployment without AUTH_MODE=cognito or oidc). Ask the user to send the request again directly.',
      );
    }
    return this.tokenFor(caller.reveal());
  }

  /** The transport's fetch: every request carries the token exchanged for its caller. */
  wrapFetch(fetch: FetchLike): FetchLike {
    return async (input, init) => {
      const token = currentCallerToken() || this.lastToken === undefined ? await this.ready() : this.lastToken;
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${token}`);
      const response = await fetch(input, { ...init, headers });
      // The server no longer takes it (revoked, shortened): the next request exchanges anew.
      if (response.status === 401) this.forget(token);
      return response;
    };
  }

  private tokenFor(subjectToken: string): Promise<string> {
    const key = createHash('sha256').update(subjectToken).digest('base64url');
    const kept = this.exchanged.get(key);
    if (kept && this.now() < kept.renewAt) return Promise.resolve((this.lastToken = kept.token));
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.exchange(subjectToken)
        .then((issued) => {
          const lifetime = issued.expiresAt === undefined ? UNSTATED_LIFETIME_MS : issued.expiresAt - this.now();
          const renewAt = this.now() + Math.max(0, lifetime - this.server.auth.refreshBeforeExpirySeconds * 1000);
          this.exchanged.delete(key);
          this.exchanged.set(key, { token: issued.token, renewAt });
          if (this.exchanged.size > MAX_CACHED_CALLERS) this.exchanged.delete(this.exchanged.keys().next().value!);
          return (this.lastToken = issued.token);
        })
        .finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }

  private forget(token: string): void {
    for (const [key, kept] of this.exchanged) if (kept.token === token) this.exchanged.delete(key);
    if (this.lastToken === token) this.lastToken = undefined;
  }

  private async exchange(subjectToken: string): Promise<IssuedToken> {
    const { auth } = this.server;
    try {
      if (auth.mode === 'token-exchange') {
        const { tokenEndpoint, metadata } = await this.authorizationServer();
        const parameters = tokenExchangeParameters({
          subjectToken,
          subjectTokenType: auth.subjectTokenType,
          requestedTokenType: ACCESS_TOKEN_TYPE,
          resource: this.server.url,
          ...(auth.audience ? { audience: auth.audience } : {}),
          ...(auth.scopes ? { scopes: auth.scopes } : {}),
        });
        return await requestToken(tokenEndpoint, parameters, { authenticate: this.clientAuthentication(metadata), fetch: this.tokenFetch(tokenEndpoint), now: this.now });
      }
      // enterprise-managed: the identity provider issues the grant, the server's authorization server the token.
      const { tokenEndpoint, metadata, issuer } = await this.authorizationServer();
      const grant = await requestToken(
        await this.identityProviderTokenEndpoint(),
        idJagRequestParameters({ idToken: subjectToken, subjectTokenType: auth.subjectTokenType, authorizationServer: issuer ?? tokenEndpoint, resource: this.server.url, ...(auth.scopes ? { scopes: auth.scopes } : {}) }),
        { authenticate: this.identityProviderAuthentication(), fetch, now: this.now },
      );
      return await requestToken(tokenEndpoint, jwtBearerParameters(grant.token, auth.scopes), { authenticate: this.clientAuthentication(metadata), fetch: this.tokenFetch(tokenEndpoint), now: this.now });
    } catch (error) {
      throw this.refusal(error, subjectToken);
    }
  }

  /** The token endpoint, and the metadata and issuer of its authorization server where they were read. */
  private authorizationServer(): Promise<{ tokenEndpoint: string; metadata?: AuthorizationServerMetadata; issuer?: string }> {
    this.discovered ??= this.discover().catch((error) => {
      this.discovered = undefined;
      throw error;
    });
    return this.discovered;
  }

  private async discover(): Promise<{ tokenEndpoint: string; metadata?: AuthorizationServerMetadata; issuer?: string }> {
    const configured = this.server.auth.tokenEndpoint;
    const issuer = this.server.oauth?.authorizationServer ?? (configured ? undefined : await this.namedAuthorizationServer());
    if (issuer === undefined) return { tokenEndpoint: configured! };
    const fetchFn = this.destinations.guard(fetch);
    const metadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn });
    if (!metadata && !configured) throw new Error(`the authorization server ${issuer} publishes no metadata, so its token endpoint is unknown: set auth.tokenEndpoint`);
    this.destinations.accept(issuer, metadata);
    return { tokenEndpoint: configured ?? metadata!.token_endpoint, ...(metadata ? { metadata } : {}), issuer: metadata?.issuer ?? issuer };
  }

  /** The authorization server the MCP server's protected resource metadata (RFC 9728) names. */
  private async namedAuthorizationServer(): Promise<string> {
    const resource = await discoverOAuthProtectedResourceMetadata(this.server.url, {}, this.destinations.guard(fetch));
    const named = resource.authorization_servers?.[0];
    if (!named) throw new Error(`MCP server "${this.server.name}" names no authorization server in its protected resource metadata: set auth.tokenEndpoint`);
    return named;
  }

  private identityProviderEndpoint: Promise<string> | undefined;

  /** The identity provider agent.yml names: its token endpoint as written, else from its metadata (read once). */
  private identityProviderTokenEndpoint(): Promise<string> {
    const provider = this.server.auth.identityProvider!;
    if (provider.tokenEndpoint) return Promise.resolve(provider.tokenEndpoint);
    this.identityProviderEndpoint ??= discoverAuthorizationServerMetadata(provider.issuer!).then((metadata) => {
      if (!metadata) throw new Error(`the identity provider ${provider.issuer} publishes no metadata: set auth.identityProvider.tokenEndpoint`);
      return metadata.token_endpoint;
    });
    return this.identityProviderEndpoint.catch((error: unknown) => {
      this.identityProviderEndpoint = undefined;
      throw error;
    });
  }

  /** The token endpoint agent.yml names is reached as written; one that metadata named goes through the discovery's guard. */
  private tokenFetch(endpoint: string): FetchLike {
    return endpoint === this.server.auth.tokenEndpoint ? fetch : this.destinations.guard(fetch);
  }

  private clientAuthentication(metadata: AuthorizationServerMetadata | undefined): AuthenticateClient | undefined {
    const add = this.server.oauth ? clientAuthentication(this.server.oauth) : undefined;
    return add ? (headers, parameters, endpoint) => add(headers, parameters, endpoint, metadata) : undefined;
  }

  private identityProviderAuthentication(): AuthenticateClient | undefined {
    const provider = this.server.auth.identityProvider;
    if (!provider?.clientId) return undefined;
    const add = clientAuthentication({ grant: 'client_credentials', clientId: provider.clientId, ...(provider.clientSecret ? { clientSecret: provider.clientSecret } : {}), privateKeyAlgorithm: 'RS256', redirectUrl: 'http://localhost/', clientName: '', refreshBeforeExpirySeconds: 0, dpop: 'off' });
    return add ? (headers, parameters, endpoint) => add(headers, parameters, endpoint, undefined) : undefined;
  }

  /** A refusal for the model and the log: the endpoint's error and description, never a token or secret. */
  private refusal(error: unknown, subjectToken: string): McpOAuthError {
    const secrets = [subjectToken, this.server.oauth?.clientSecret, this.server.auth.identityProvider?.clientSecret];
    const why = redact(error instanceof TokenEndpointRefusal ? tokenEndpointRefusalText(error) : (error as Error).message, secrets);
    this.logger.warn('mcp token exchange refused', { server: this.server.name, mode: this.server.auth.mode, ...(error instanceof TokenEndpointRefusal ? { status: error.status, error: error.error } : {}), reason: why });
    return new McpOAuthError('mcp_token_exchange_refused', this.server.name, `MCP server "${this.server.name}" was not called: exchanging the user's token for one of this server was refused (${why}).`, { cause: error });
  }
}
