/**
 * Stands in for per-user connections (`#per-user-connections`: lib/configured-connections.ts, the
 * owners' OAuth flows and the KMS sealer with it) in the Lambda bundles of a configuration without
 * a server of `auth.mode: per-user` (infra/bundling.ts, functionSubstitutes). A function that finds
 * one configured anyway fails its cold start, saying why: it must never call such a server with
 * the service's own identity.
 */
export function configuredConnections(config: { mcpServers: ReadonlyArray<{ type: string; auth?: { mode: string } }> }): undefined {
  if (!config.mcpServers.some((server) => server.auth?.mode === 'per-user')) return undefined;
  throw new Error('bundled without per-user connections: deploy again with the auth.mode per-user server in agent.yml');
}
