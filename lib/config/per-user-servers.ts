/**
 * agent.yml's servers split by whose identity their calls carry (`auth.mode`): the per-user ones
 * are reached through the owners' connections (lib/configured-connections.ts), never with the
 * service's identity, so the gateway and the service's token store leave them out.
 */
import type { McpServerConfig } from './load.ts';

export type PerUserServerConfig = Extract<McpServerConfig, { url: string }> & { auth: { mode: 'per-user' } };

export function isPerUser(server: McpServerConfig): server is PerUserServerConfig {
  return server.type !== 'stdio' && server.auth.mode === 'per-user';
}

export function perUserServers(servers: readonly McpServerConfig[]): PerUserServerConfig[] {
  return servers.filter(isPerUser);
}

/** The servers called with the service's own identity. */
export function serviceIdentityServers(servers: readonly McpServerConfig[]): McpServerConfig[] {
  return servers.filter((server) => !isPerUser(server));
}
