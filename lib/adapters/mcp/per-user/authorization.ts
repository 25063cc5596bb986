/**
 * The OAuth 2.1 side of one per-user server: discovery (protected resource metadata, then the
 * authorization server's metadata), the client (agent.yml's pre-registered one, or one registered
 * dynamically and kept in the store, shared by every owner), and the four requests a connection
 * makes: the authorization URL (PKCE S256, RFC 8707 resource), the code exchange, the refresh and
 * the revocation (RFC 7009, when the server advertises an endpoint). The MCP SDK's own client
 * functions do each request, as they do for the service's identity (lib/adapters/mcp/oauth/); the
 * same destination checks guard every fetch (no private address, https only where deployed, the
 * issuer the metadata names).
 */
import {
  discoverOAuthServerInfo,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthProtectedResourceMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { checkResourceAllowed, resourceUrlFromServerUrl } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import { clientMetadataFor, configuredClient } from '../oauth/client.ts';
import { OAuthDestinations, type OAuthNetwork } from '../oauth/destinations.ts';
import type { OAuthOptions } from '../oauth/options.ts';
import { selectScope } from '../oauth/scope.ts';
import type { ConnectionStore } from './connection-store.ts';
import type { RecordSealer } from './sealer.ts';

/** A remote server of agent.yml with `auth.mode: per-user`, and its `oauth` block (defaults filled in). */
export interface PerUserServer {
  name: string;
  url: string;
  oauth: OAuthOptions;
}

export interface AuthorizationDependencies {
  store: ConnectionStore;
  sealer: RecordSealer;
  /** The service's public URL, where the callback routes are (PUBLIC_BASE_URL). */
  publicBaseUrl: () => string;
  network: OAuthNetwork;
  fetch?: FetchLike;
}

interface Discovered {
  authorizationServerUrl: string;
  metadata: AuthorizationServerMetadata | undefined;
  resourceMetadata: OAuthProtectedResourceMetadata | undefined;
  /** The RFC 8707 resource tokens are asked for. */
  resource: URL;
}

/** What a started authorization needs at its callback, sealed in the store meanwhile. */
export interface PendingSecrets {
  codeVerifier: string;
  redirectUrl: string;
}

export class PerUserAuthorization {
  readonly server: PerUserServer;
  private readonly dependencies: AuthorizationDependencies;
  private readonly destinations: OAuthDestinations;
  private discovered: Promise<Discovered> | undefined;

  constructor(server: PerUserServer, dependencies: AuthorizationDependencies) {
    this.server = server;
    this.dependencies = dependencies;
    this.destinations = new OAuthDestinations({ name: server.name, url: server.url, settings: server.oauth }, dependencies.network);
  }

  /** GET /connections/{server}/callback of this service. */
  redirectUrl(): string {
    return `${this.dependencies.publicBaseUrl().replace(/\/+$/, '')}/connections/${encodeURIComponent(this.server.name)}/callback`;
  }

  /** The provider's consent page for a new connection: PKCE S256, the given state, the server as resource. */
  async authorizationUrl(state: string): Promise<{ url: URL; secrets: PendingSecrets }> {
    const discovered = await this.discover();
    const redirectUrl = this.redirectUrl();
    const clientInformation = await this.client(discovered, redirectUrl);
    const scope = selectScope({
      grant: 'authorization_code',
      configured: this.server.oauth.scopes,
      resourceScopes: discovered.resourceMetadata?.scopes_supported,
      authorizationServerScopes: discovered.metadata?.scopes_supported,
    });
    const started = await startAuthorization(discovered.authorizationServerUrl, {
      metadata: discovered.metadata,
      clientInformation,
      redirectUrl,
      state,
      resource: discovered.resource,
      ...(scope ? { scope } : {}),
    });
    return { url: started.authorizationUrl, secrets: { codeVerifier: started.codeVerifier, redirectUrl } };
  }

  async exchange(code: string, secrets: PendingSecrets): Promise<OAuthTokens> {
    const discovered = await this.discover();
    return exchangeAuthorization(discovered.authorizationServerUrl, {
      metadata: discovered.metadata,
      clientInformation: await this.client(discovered, secrets.redirectUrl),
      authorizationCode: code,
      codeVerifier: secrets.codeVerifier,
      redirectUri: secrets.redirectUrl,
      resource: discovered.resource,
      fetchFn: this.fetch(),
    });
  }

  async refresh(refreshToken: string): Promise<OAuthTokens> {
    const discovered = await this.discover();
    const tokens = await refreshAuthorization(discovered.authorizationServerUrl, {
      metadata: discovered.metadata,
      clientInformation: await this.client(discovered, this.redirectUrl()),
      refreshToken,
      resource: discovered.resource,
      fetchFn: this.fetch(),
    });
    // A provider that does not rotate keeps the refresh token it had (RFC 6749 §6).
    return { ...tokens, refresh_token: tokens.refresh_token ?? refreshToken };
  }

  /**
   * Revokes the tokens at the provider (RFC 7009): the refresh token first (which ends the grant
   * at most providers), then the access token. False when the provider advertises no endpoint.
   */
  async revoke(tokens: OAuthTokens): Promise<boolean> {
    const discovered = await this.discover();
    // OIDC discovery documents (the SDK's other metadata type) may carry it too, untyped.
    const metadata = discovered.metadata as { revocation_endpoint?: string; revocation_endpoint_auth_methods_supported?: string[] } | undefined;
    const endpoint = metadata?.revocation_endpoint;
    if (!endpoint) return false;
    const client = await this.client(discovered, this.redirectUrl());
    const fetch = this.fetch();
    const hints: Array<[string, string]> = [
      ...(tokens.refresh_token ? [[tokens.refresh_token, 'refresh_token'] as [string, string]] : []),
      [tokens.access_token, 'access_token'],
    ];
    for (const [token, hint] of hints) {
      const body = new URLSearchParams({ token, token_type_hint: hint, client_id: client.client_id });
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (client.client_secret) {
        if (metadata?.revocation_endpoint_auth_methods_supported?.includes('client_secret_basic')) {
          headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
        } else {
          body.set('client_secret', client.client_secret);
        }
      }
      const response = await fetch(endpoint, { method: 'POST', headers, body: body.toString() });
      await response.body?.cancel().catch(() => undefined);
      if (!response.ok) throw new Error(`the revocation endpoint answered HTTP ${response.status}`);
    }
    return true;
  }

  private fetch(): FetchLike {
    return this.destinations.guard(this.dependencies.fetch ?? globalThis.fetch);
  }

  /** Once per process (a failure is tried again next time). */
  private discover(): Promise<Discovered> {
    this.discovered ??= (async () => {
      const info = await discoverOAuthServerInfo(this.server.url, { fetchFn: this.fetch() });
      // Before anything is sent there: the issuer checks, and its endpoints become places the flow may go.
      this.destinations.accept(info.authorizationServerUrl, info.authorizationServerMetadata);
      // A server whose metadata names another resource is refused: its users' tokens would be good elsewhere.
      const requested = resourceUrlFromServerUrl(this.server.url);
      const named = info.resourceMetadata?.resource;
      if (named !== undefined && !checkResourceAllowed({ requestedResource: requested, configuredResource: named })) {
        throw new Error(`MCP server "${this.server.name}" names the protected resource ${named} in its metadata, which is not ${requested.href}`);
      }
      const resource = named === undefined ? requested : new URL(named);
      return { authorizationServerUrl: info.authorizationServerUrl, metadata: info.authorizationServerMetadata, resourceMetadata: info.resourceMetadata, resource };
    })().catch((error: unknown) => {
      this.discovered = undefined;
      throw error;
    });
    return this.discovered;
  }

  /** agent.yml's client, else the one registered for this redirect URL, else a new registration. */
  private async client(discovered: Discovered, redirectUrl: string): Promise<OAuthClientInformationMixed> {
    const configured = configuredClient(this.server.oauth);
    if (configured) return configured;
    const { store, sealer } = this.dependencies;
    const context = { purpose: 'client' as const, server: this.server.name };
    const stored = await store.readClient(this.server.name);
    if (stored && stored.redirectUrl === redirectUrl) return JSON.parse(await sealer.open(stored.sealed, context)) as OAuthClientInformationMixed;
    // The service's public URL changed since: a client of the old redirect URL is of no use.
    if (stored) await store.deleteClient(this.server.name);
    const registered = await registerClient(discovered.authorizationServerUrl, {
      metadata: discovered.metadata,
      clientMetadata: clientMetadataFor({ ...this.server.oauth, grant: 'authorization_code' }, redirectUrl, undefined),
      fetchFn: this.fetch(),
    });
    // Two processes registering at once: both use the one stored first.
    const kept = await store.putClientIfAbsent({ server: this.server.name, redirectUrl, sealed: await sealer.seal(JSON.stringify(registered), context) });
    return JSON.parse(await sealer.open(kept.sealed, context)) as OAuthClientInformationMixed;
  }
}
