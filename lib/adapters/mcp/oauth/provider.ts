/**
 * The SDK's `OAuthClientProvider` for one configured MCP server, backed by the token store.
 *
 * The SDK's transports do the protocol: on a 401 they run `auth()` (discovery, registration,
 * refresh or client_credentials) and retry once. This provider adds what a long-running,
 * multi-process service needs around that:
 *
 * - tokens come from the store, so every process (Lambda containers, `npm start`, the login
 *   command) shares one grant, and a login done elsewhere is picked up on the next attempt;
 * - an access token is renewed shortly before it expires (refresh token, or client_credentials
 *   again), after re-reading the store in case another process already did;
 * - at run time nothing waits for a person: an authorization that needs one fails with
 *   `mcp_authorization_required`, naming the login command (and the scope a step-up asked for);
 * - during a login (`LoginInteraction`) the authorization URL is captured instead.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  auth,
  type AddClientAuthentication,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthOptions } from './options.ts';
import { errorMessage } from '../../../core/errors.ts';
import type { Logger } from '../../../core/logger.ts';
import { movedFrom, moveReason } from './authorization-server-change.ts';
import { clientAuthentication } from './client-auth.ts';
import { clientMetadataFor, configuredClient } from './client.ts';
import { OAuthDestinations, type OAuthNetwork } from './destinations.ts';
import { DpopBinding } from '#mcp-oauth-dpop';
import { authorizationRequired, McpOAuthError, redact } from './errors.ts';
import { expiresAt, recordFor, type OAuthServerRecord } from './record.ts';
import { covers, selectScope, union, words } from './scope.ts';
import type { OAuthTokenStore } from './store.ts';
import { WorkloadAssertion } from '#mcp-oauth-workload';

/** One remote MCP server with an `oauth` block. */
interface OAuthServer {
  name: string;
  url: string;
  settings: OAuthOptions;
}

interface OAuthProviderDependencies {
  store: OAuthTokenStore;
  logger: Logger;
  /** For the renewals this provider starts itself (the transports pass their own fetch). */
  fetch?: FetchLike;
  /** How far discovery may reach (destinations.ts); default: as deployed, no loopback but the configured servers. */
  network?: OAuthNetwork;
  now?: () => number;
}

/** A login in progress: the authorization URL is captured rather than refused. */
export interface LoginInteraction {
  redirectUrl: string;
  state: string;
  /** The scope the login asks for, kept with the tokens it brings. */
  requestedScope?: string;
  resourceMetadataUrl?: string;
  /** Set by the SDK when a login starts; given back when it completes. */
  codeVerifier?: string;
  authorizationUrl?: URL;
}

/** Set while this provider's own renewal runs `auth()`, whose reads of tokens() must not renew again. */
const renewing = new AsyncLocalStorage<ServerOAuthProvider>();

export class ServerOAuthProvider implements OAuthClientProvider {
  readonly server: OAuthServer;
  /** Where this server's OAuth requests may go: every fetch of its flows passes `destinations.guard`. */
  readonly destinations: OAuthDestinations;
  /** DPoP proofs and the keys tokens are bound to (dpop.ts). */
  readonly dpop: DpopBinding;
  /** grant: jwt-bearer: the platform's JWT, read at each token request. */
  private readonly workload: WorkloadAssertion | undefined;
  addClientAuthentication?: AddClientAuthentication;
  private readonly dependencies: OAuthProviderDependencies;
  private readonly interaction: LoginInteraction | undefined;
  private record: OAuthServerRecord | undefined;
  private loaded = false;
  /** The server rejected the token in hand: read the store again before trusting it. */
  private stale = false;
  private renewal: Promise<void> | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  /** Scopes the server's challenges named, for client_credentials requests (no person involved). */
  private challengeScope: string | undefined;
  private stepUpScope: string | undefined;
  private tokenRequestScope: string | undefined;

  constructor(server: OAuthServer, dependencies: OAuthProviderDependencies, interaction?: LoginInteraction) {
    this.server = server;
    this.dependencies = dependencies;
    this.interaction = interaction;
    this.destinations = new OAuthDestinations(server, dependencies.network ?? { allowLoopback: false });
    this.dpop = new DpopBinding(server.name, server.settings.dpop ?? 'auto', {
      authorizationServerMetadata: () => this.discovery?.authorizationServerMetadata,
      stored: async (presented) => (presented !== undefined && this.record?.tokens?.access_token !== presented ? this.load() : this.record),
      startsAfresh: interaction !== undefined,
    });
    this.workload = server.settings.grant === 'jwt-bearer' ? new WorkloadAssertion(server.name, server.settings.assertionFile ?? '') : undefined;
    const addClientAuthentication = clientAuthentication(server.settings);
    if (addClientAuthentication) this.addClientAuthentication = addClientAuthentication;
  }

  private get settings(): OAuthOptions {
    return this.server.settings;
  }

  private get name(): string {
    return this.server.name;
  }

  /** Every request of this server's flows and of its transport: to allowed places only, with DPoP proofs where they apply. */
  outgoing(fetch: FetchLike): FetchLike {
    return this.dpop.wrap(this.destinations.guard(fetch));
  }

  get redirectUrl(): string | undefined {
    if (this.settings.grant !== 'authorization_code') return undefined;
    return this.interaction?.redirectUrl ?? this.settings.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.settings.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this.settings.grant === 'authorization_code' ? undefined : this.clientCredentialsScope();
    return clientMetadataFor(this.settings, this.redirectUrl, scope);
  }

  state(): string {
    return this.interaction?.state ?? randomBytes(24).toString('base64url');
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const configured = configuredClient(this.settings);
    if (configured) return configured;
    await this.load(!this.loaded);
    const client = this.record?.client;
    if (!this.interaction && this.settings.grant === 'authorization_code') {
      // Registering a client is the login's business; at run time it would register a new one
      // on every failed attempt, or with a new authorization server no operator has seen.
      if (!client) throw this.authorizationRequired(undefined);
      const current = this.discovery?.authorizationServerUrl;
      const previous = movedFrom(client, current);
      if (previous !== undefined) throw authorizationRequired(this.name, this.dependencies.store.location, this.record?.requiredScope, moveReason(previous, current!));
    }
    return client;
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    // Configured credentials stay in agent.yml (and its environment); only registrations are stored.
    if (this.settings.clientId !== undefined) return;
    await this.change((current) => ({ ...current, client: information }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    // auth() reads the tokens it is renewing: answer from memory.
    if (renewing.getStore() === this) return this.record?.tokens;
    // A login authorizes afresh, whatever is stored.
    if (this.interaction) return undefined;
    // Without a token, another process (the login command) may have stored one since the last look.
    await this.load(!this.loaded || this.stale || !this.record?.tokens);
    this.stale = false;
    const record = this.record;
    if (record?.tokens && this.expiresSoon(record) && this.renewable(record)) await this.renewOnce();
    return this.record?.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const requestedScope = this.interaction?.requestedScope ?? this.tokenRequestScope ?? this.record?.requestedScope;
    const resourceMetadataUrl = this.interaction?.resourceMetadataUrl ?? this.discovery?.resourceMetadataUrl ?? this.record?.resourceMetadataUrl;
    const receivedAt = this.now();
    const dpopKey = this.dpop.keyFor(tokens);
    await this.change((current) => {
      const { requiredScope, pendingLogin, dpopKey: _previousKey, ...rest } = current;
      const granted = tokens.scope ?? requestedScope;
      return {
        ...rest,
        tokens,
        ...(dpopKey === undefined ? {} : { dpopKey }),
        receivedAt,
        ...(requestedScope === undefined ? {} : { requestedScope }),
        ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
        // A login completes its own pending authorization; a renewal leaves someone else's alone.
        ...(pendingLogin === undefined || this.interaction ? {} : { pendingLogin }),
        ...(requiredScope === undefined || covers(granted, requiredScope) ? {} : { requiredScope }),
      };
    });
    this.dependencies.logger.info('mcp oauth tokens stored', {
      server: this.name,
      grant: this.settings.grant,
      ...(tokens.expires_in === undefined ? {} : { expiresInSeconds: tokens.expires_in }),
      ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
      refreshable: tokens.refresh_token !== undefined,
      ...(dpopKey === undefined ? {} : { dpopBound: true }),
      store: this.dependencies.store.location,
    });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.interaction) {
      this.interaction.authorizationUrl = authorizationUrl;
      return;
    }
    // A scope the grant lacks (a step-up that a refresh could not satisfy) is remembered, so the
    // login asks for it; a first authorization has nothing to remember.
    const wanted = authorizationUrl.searchParams.get('scope') ?? undefined;
    const granted = this.grantedScope();
    const required = this.record?.tokens && wanted && !covers(granted, wanted) ? union(words(granted), words(wanted)).join(' ') : undefined;
    if (required !== undefined) await this.change((current) => ({ ...current, requiredScope: required }));
    throw this.authorizationRequired(required ?? this.record?.requiredScope);
  }

  saveCodeVerifier(codeVerifier: string): void {
    if (this.interaction) this.interaction.codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    const verifier = this.interaction?.codeVerifier;
    if (verifier === undefined) throw this.authorizationRequired(undefined);
    return verifier;
  }

  prepareTokenRequest(): URLSearchParams | Promise<URLSearchParams> | undefined {
    // undefined: the SDK's authorization_code exchange, with code, verifier and redirect URI.
    if (this.settings.grant === 'authorization_code') return undefined;
    const scope = this.clientCredentialsScope();
    this.tokenRequestScope = scope;
    if (this.workload) return this.workload.tokenRequest(scope);
    return new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const rejected = this.record?.tokens?.access_token;
    const rejectedClient = this.record?.client?.client_id;
    // The SDK calls this when the authorization server rejected the grant, right before it tries again.
    if (scope === 'all' || scope === 'tokens') this.workload?.rejected();
    if (scope === 'all' || scope === 'tokens') {
      // Only the tokens this process used: newer ones another process stored are left alone.
      await this.change((current) => {
        if (current.tokens === undefined || current.tokens.access_token !== rejected) return current;
        const { tokens: _tokens, receivedAt: _receivedAt, ...rest } = current;
        return rest;
      });
    }
    if ((scope === 'all' || scope === 'client') && this.settings.clientId === undefined) {
      await this.change((current) => {
        if (current.client === undefined || current.client.client_id !== rejectedClient) return current;
        const { client: _client, ...rest } = current;
        return rest;
      });
    }
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
    if (scope === 'verifier' && this.interaction) delete this.interaction.codeVerifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    // Before anything is sent to it: the issuer checks, and its endpoints become places the flow may go.
    this.destinations.accept(state.authorizationServerUrl, state.authorizationServerMetadata);
    // The SDK only knows the metadata URL when a challenge named it: keep the one we know.
    const resourceMetadataUrl = state.resourceMetadataUrl ?? this.discovery?.resourceMetadataUrl ?? this.record?.resourceMetadataUrl;
    this.discovery = { ...state, ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}) };
  }

  /**
   * The server refused `used`: when the store holds another token still in date (another process
   * renewed it, or an operator logged in again), that one, to retry with before anything is renewed.
   */
  async newerAccessToken(used: string): Promise<string | undefined> {
    const record = await this.load();
    const latest = record?.tokens?.access_token;
    return latest !== undefined && latest !== used && !this.expiresSoon(record!) ? latest : undefined;
  }

  /** The server answered 401: the token in hand is not good, so the store is read again first. */
  unauthorized(challengeScope: string | undefined): void {
    this.stale = true;
    // Discovered again: the resource may name another authorization server now (SEP-2352).
    this.discovery = undefined;
    if (challengeScope) this.challengeScope = challengeScope;
  }

  /**
   * The server answered 403 insufficient_scope. Without a person (client_credentials) the next
   * token request simply asks for more. Otherwise a refresh cannot add scope (RFC 6749 §6), so
   * rather than letting the SDK refresh and fail, this stops with what the operator must do.
   */
  async insufficientScope(challengeScope: string | undefined): Promise<void> {
    if (this.settings.grant !== 'authorization_code') {
      this.stepUpScope = union(words(this.stepUpScope), words(challengeScope)).join(' ') || undefined;
      return;
    }
    await this.load(!this.loaded);
    const granted = this.grantedScope();
    if (!challengeScope || covers(granted, challengeScope)) {
      throw new McpOAuthError(
        'mcp_insufficient_scope',
        this.name,
        `MCP server "${this.name}" refuses the token for lack of scope "${challengeScope ?? '(not named)'}", which it was granted: ` +
          'a new login would not change that; check the server\'s permissions for this client.',
      );
    }
    // SEP-2350: ask for what was granted and what is missing, so no earlier operation is lost.
    const required = union(words(granted), words(challengeScope)).join(' ');
    if (this.record?.requiredScope !== required) await this.change((current) => ({ ...current, requiredScope: required }));
    throw this.authorizationRequired(required);
  }

  /** The scope the current grant carries (as the token response said, else as it was asked for). */
  grantedScope(): string | undefined {
    return this.record?.tokens?.scope ?? this.record?.requestedScope;
  }

  /** The stored record, read once (or again when `force`). */
  async load(force = true): Promise<OAuthServerRecord | undefined> {
    if (force) {
      this.record = recordFor(await this.dependencies.store.read(this.name), this.server.url);
      this.loaded = true;
    }
    return this.record;
  }

  private async change(apply: (current: OAuthServerRecord) => OAuthServerRecord): Promise<void> {
    const url = this.server.url;
    this.record = await this.dependencies.store.update(this.name, (stored) => apply(recordFor(stored, url) ?? { serverUrl: url }));
    this.loaded = true;
  }

  private clientCredentialsScope(): string | undefined {
    return selectScope({
      grant: 'client_credentials',
      configured: this.settings.scopes,
      challenge: this.challengeScope,
      resourceScopes: this.discovery?.resourceMetadata?.scopes_supported,
      required: this.stepUpScope,
    });
  }

  private expiresSoon(record: OAuthServerRecord): boolean {
    const at = expiresAt(record);
    return at !== undefined && this.now() >= at - this.settings.refreshBeforeExpirySeconds * 1000;
  }

  private renewable(record: OAuthServerRecord): boolean {
    return this.settings.grant !== 'authorization_code' || record.tokens?.refresh_token !== undefined;
  }

  private renewOnce(): Promise<void> {
    this.renewal ??= this.renew().finally(() => {
      this.renewal = undefined;
    });
    return this.renewal;
  }

  private async renew(): Promise<void> {
    const before = this.record?.tokens?.access_token;
    await this.load();
    const latest = this.record;
    // Another process renewed while this one was about to: use its tokens.
    if (latest?.tokens && latest.tokens.access_token !== before && !this.expiresSoon(latest)) return;
    const resourceMetadataUrl = this.discovery?.resourceMetadataUrl ?? latest?.resourceMetadataUrl;
    try {
      await renewing.run(this, () =>
        auth(this, {
          serverUrl: this.server.url,
          ...(resourceMetadataUrl ? { resourceMetadataUrl: new URL(resourceMetadataUrl) } : {}),
          fetchFn: this.outgoing(this.dependencies.fetch ?? globalThis.fetch),
        }),
      );
    } catch (error) {
      // The expiring token is still sent: the server's 401 then takes the SDK's own path.
      this.dependencies.logger.warn('mcp oauth token renewal failed', { server: this.name, error: this.redact(errorMessage(error)) });
    }
  }

  private authorizationRequired(scope: string | undefined): McpOAuthError {
    return authorizationRequired(this.name, this.dependencies.store.location, scope);
  }

  /** Error texts come from authorization servers: make sure none of our secrets rides along into a log. */
  private redact(text: string): string {
    return redact(text, [this.record?.tokens?.access_token, this.record?.tokens?.refresh_token, this.settings.clientSecret, this.record?.client?.client_secret]);
  }

  private now(): number {
    return (this.dependencies.now ?? Date.now)();
  }
}
