/**
 * Gives every remote server with an `oauth` block its provider, built once per process so that
 * the reconnections of a warm container share its tokens and its renewal; and every server called
 * on the caller's behalf (auth.mode token-exchange, enterprise-managed) its exchanger, whose
 * `oauth` block then only names the client.
 */
import type { Logger } from '../../../core/logger.ts';
import type { OAuthNetwork } from './destinations.ts';
import type { OAuthOptions } from './options.ts';
// The Lambda bundles of a configuration without auth.mode leave it out (infra/bundling.ts).
import { OnBehalfOf } from '#on-behalf-of';
import type { OnBehalfOfOptions } from './on-behalf-of.ts';
// Likewise a configuration without an `oauth` block (lib/adapters/mcp/oauth/service-authorization.ts).
import { ServerOAuthProvider, serverAuthorization } from '#mcp-oauth-client';
import type { OAuthTokenStore } from './store.ts';
import type { McpServerAuthorization } from './transport.ts';

interface AttachOAuthOptions {
  store: OAuthTokenStore;
  logger: Logger;
  network: OAuthNetwork;
}

type WithAuthorization<Server> = Server & { authorization?: McpServerAuthorization; onBehalfOf?: OnBehalfOf };

/** What attaching reads of a server: a remote one's address and `oauth` block (agent.yml's entries fit it). */
export type OAuthCandidate =
  | { type: 'stdio' }
  | { name: string; type: 'http' | 'sse' | 'auto'; url: string; oauth?: OAuthOptions; auth?: { mode: 'service' | 'per-user' } | OnBehalfOfOptions };

export function attachOAuth<Server extends OAuthCandidate>(servers: readonly Server[], options: AttachOAuthOptions): WithAuthorization<Server>[] {
  return servers.map((server) => {
    if (server.type === 'stdio') return server;
    const auth = server.auth;
    if (auth !== undefined && onBehalf(auth)) {
      return { ...server, onBehalfOf: new OnBehalfOf({ name: server.name, url: server.url, auth, ...(server.oauth ? { oauth: server.oauth } : {}) }, options) };
    }
    if (server.oauth === undefined) return server;
    const provider = new ServerOAuthProvider({ name: server.name, url: server.url, settings: server.oauth }, options);
    return { ...server, authorization: serverAuthorization(provider) };
  });
}

/** True when some server needs a token store: an `oauth` block with the service's own identity. */
export function usesOAuth(servers: readonly OAuthCandidate[]): boolean {
  return servers.some((server) => server.type !== 'stdio' && server.oauth !== undefined && !actsOnBehalf(server));
}

/** True when some server is called with its callers' identity (exchanged tokens live in memory: no store). */
export function actsOnBehalfOfCallers(servers: readonly OAuthCandidate[]): boolean {
  return servers.some((server) => server.type !== 'stdio' && actsOnBehalf(server));
}

const onBehalf = (auth: NonNullable<Exclude<OAuthCandidate, { type: 'stdio' }>['auth']>): auth is OnBehalfOfOptions => auth.mode === 'token-exchange' || auth.mode === 'enterprise-managed';
const actsOnBehalf = (server: Exclude<OAuthCandidate, { type: 'stdio' }>) => server.auth !== undefined && onBehalf(server.auth);
