/**
 * The authorization-code login a person does once per server, as two steps any front end can
 * drive: the login command (functions/mcp-login.ts, a localhost redirect) today, an HTTP route of
 * the service later.
 *
 *   startLogin(server)        probe → discovery → scope → client (registered if need be)
 *                             → PKCE + state kept in the token store → the authorization URL
 *   completeLogin(server, q)  the redirect's query: state checked → code exchanged with the
 *                             verifier → tokens in the token store
 *
 * Both steps may run in different processes (two Lambda invocations): everything between them is
 * in the store. A client_credentials server needs no person: startLogin then fetches and stores a
 * token right away (answer `authorized`), which is a handy check of its credentials.
 */
import { randomBytes } from 'node:crypto';
import { auth, discoverOAuthServerInfo } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthOptions } from './options.ts';
import type { Logger } from '../../../core/logger.ts';
import { OAuthDestinations, type OAuthNetwork } from './destinations.ts';
import { McpOAuthError } from './errors.ts';
import { checkIssuer } from './issuer-check.ts';
import { probeChallenge, type ProbedServer } from './probe.ts';
import { ServerOAuthProvider, type LoginInteraction } from './provider.ts';
import { recordFor } from './record.ts';
import { selectScope } from './scope.ts';
import type { OAuthTokenStore } from './store.ts';

/** A person has this long between being sent to the authorization server and coming back. */
export const LOGIN_TIMEOUT_MS = 10 * 60_000;

interface LoginServer extends ProbedServer {
  name: string;
  oauth: OAuthOptions;
}

export interface LoginDependencies {
  store: OAuthTokenStore;
  logger: Logger;
  fetch?: FetchLike;
  now?: () => number;
  /** How far discovery may reach (destinations.ts); default: loopback allowed, as a login runs on an operator's machine. */
  network?: OAuthNetwork;
}

/** What the lookup reads of a server entry: every entry has a name and a type; a remote one may have an `oauth` block. */
type LoginCandidate = { name: string; type: 'stdio' } | (ProbedServer & { name: string; oauth?: OAuthOptions; auth?: { mode: string } });

type LoginStart =
  | { status: 'authorize'; authorizationUrl: URL; redirectUrl: string; scope?: string }
  | { status: 'authorized' };

/** The remote server `name` of agent.yml, when it has an `oauth` block. */
export function findLoginServer(config: { mcpServers: readonly LoginCandidate[] }, name: string): LoginServer {
  const server = config.mcpServers.find((candidate) => candidate.name === name);
  // Such a server is called with each caller's own exchanged token: nobody logs the service in.
  if (server && server.type !== 'stdio' && server.auth && server.auth.mode !== 'service') {
    throw new McpOAuthError('mcp_oauth_not_configured', name, `"${name}" is called on behalf of each caller (auth.mode ${server.auth.mode}): there is nothing to log in`);
  }
  if (server && server.type !== 'stdio' && server.oauth) return { name, url: server.url, type: server.type, headers: server.headers, oauth: server.oauth };
  const withOAuth = config.mcpServers.filter((candidate) => candidate.type !== 'stdio' && candidate.oauth).map((candidate) => candidate.name);
  throw new McpOAuthError(
    'mcp_oauth_not_configured',
    name,
    `"${name}" is not a remote MCP server with an oauth block in agent.yml` +
      (withOAuth.length > 0 ? ` (servers with OAuth: ${withOAuth.join(', ')})` : ' (no server has one)'),
  );
}

export async function startLogin(server: LoginServer, dependencies: LoginDependencies, options: { redirectUrl?: string; signal?: AbortSignal } = {}): Promise<LoginStart> {
  const fetch = new OAuthDestinations({ name: server.name, url: server.url, settings: server.oauth }, networkOf(dependencies)).guard(dependencies.fetch ?? globalThis.fetch);
  const now = dependencies.now ?? Date.now;
  const challenge = await probeChallenge(server, fetch, options.signal);
  const discovery = await discoverOAuthServerInfo(server.url, {
    ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
    fetchFn: fetch,
  });
  const stored = recordFor(await dependencies.store.read(server.name), server.url);
  const scope = selectScope({
    grant: server.oauth.grant,
    configured: server.oauth.scopes,
    challenge: challenge.scope,
    resourceScopes: discovery.resourceMetadata?.scopes_supported,
    required: stored?.requiredScope,
    authorizationServerScopes: discovery.authorizationServerMetadata?.scopes_supported,
  });
  const resourceMetadataUrl = challenge.resourceMetadataUrl?.href;
  const interaction: LoginInteraction = {
    redirectUrl: options.redirectUrl ?? server.oauth.redirectUrl,
    state: randomBytes(24).toString('base64url'),
    ...(scope ? { requestedScope: scope } : {}),
    ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
  };
  const provider = providerFor(server, dependencies, interaction);
  provider.unauthorized(challenge.scope);
  // Checks the issuer before anything is sent to the authorization server.
  provider.saveDiscoveryState({ ...discovery, ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}) });
  const metadata = discovery.authorizationServerMetadata;
  const result = await auth(provider, {
    serverUrl: server.url,
    ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
    ...(scope ? { scope } : {}),
    fetchFn: provider.dpop.wrap(fetch),
  });
  if (result === 'AUTHORIZED') return { status: 'authorized' };
  const { authorizationUrl, codeVerifier } = interaction;
  if (!authorizationUrl || !codeVerifier) throw new Error(`the authorization of "${server.name}" did not produce an authorization URL`);
  await dependencies.store.update(server.name, (current) => ({
    ...(recordFor(current, server.url) ?? { serverUrl: server.url }),
    pendingLogin: {
      state: interaction.state,
      codeVerifier,
      redirectUrl: interaction.redirectUrl,
      ...(scope ? { scope } : {}),
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
      startedAt: now(),
      issuer: metadata?.issuer ?? discovery.authorizationServerUrl,
      // RFC 9207's flag: kept by the SDK's loose schema, though not in its type.
      ...((metadata as { authorization_response_iss_parameter_supported?: unknown } | undefined)?.authorization_response_iss_parameter_supported === true ? { issRequired: true } : {}),
    },
  }));
  dependencies.logger.info('mcp oauth login started', { server: server.name, ...(scope ? { scope } : {}) });
  return { status: 'authorize', authorizationUrl, redirectUrl: interaction.redirectUrl, ...(scope ? { scope } : {}) };
}

/** `query`: the redirect's query parameters (code and state, or error and error_description). */
export async function completeLogin(server: LoginServer, dependencies: LoginDependencies, query: URLSearchParams): Promise<{ scope?: string }> {
  const now = dependencies.now ?? Date.now;
  const pending = recordFor(await dependencies.store.read(server.name), server.url)?.pendingLogin;
  if (!pending) {
    throw new McpOAuthError('mcp_login_not_started', server.name, `no login of "${server.name}" is waiting for its callback: start one first`);
  }
  // The state ties this callback to the authorization this service started (CSRF, RFC 9700 §4.7).
  if (query.get('state') !== pending.state) {
    throw new McpOAuthError('mcp_login_state_mismatch', server.name, `the callback for "${server.name}" does not belong to the login in progress (its state differs): start again`);
  }
  checkIssuer(server.name, pending, query.get('iss'));
  if (now() - pending.startedAt > LOGIN_TIMEOUT_MS) {
    throw new McpOAuthError('mcp_login_expired', server.name, `the login of "${server.name}" took longer than ${LOGIN_TIMEOUT_MS / 60_000} minutes: start again`);
  }
  const code = query.get('code');
  if (query.get('error') || !code) {
    const reason = query.get('error') ? `${query.get('error')}${query.get('error_description') ? `: ${query.get('error_description')}` : ''}` : 'no authorization code came back';
    throw new McpOAuthError('mcp_login_denied', server.name, `the authorization server did not authorize "${server.name}" (${reason})`);
  }
  const provider = providerFor(server, dependencies, {
    redirectUrl: pending.redirectUrl,
    state: pending.state,
    codeVerifier: pending.codeVerifier,
    ...(pending.scope ? { requestedScope: pending.scope } : {}),
    ...(pending.resourceMetadataUrl ? { resourceMetadataUrl: pending.resourceMetadataUrl } : {}),
  });
  await auth(provider, {
    serverUrl: server.url,
    authorizationCode: code,
    ...(pending.resourceMetadataUrl ? { resourceMetadataUrl: new URL(pending.resourceMetadataUrl) } : {}),
    ...(pending.scope ? { scope: pending.scope } : {}),
    fetchFn: provider.outgoing(dependencies.fetch ?? globalThis.fetch),
  });
  return pending.scope ? { scope: pending.scope } : {};
}

function providerFor(server: LoginServer, dependencies: LoginDependencies, interaction: LoginInteraction): ServerOAuthProvider {
  return new ServerOAuthProvider({ name: server.name, url: server.url, settings: server.oauth }, { ...dependencies, network: networkOf(dependencies) }, interaction);
}

const networkOf = (dependencies: LoginDependencies): OAuthNetwork => dependencies.network ?? { allowLoopback: true };
