/**
 * Stands in for the on-behalf-of exchanger (`#on-behalf-of`: lib/adapters/mcp/oauth/on-behalf-of.ts,
 * with token-exchange.ts and id-jag.ts) in the Lambda bundles of a configuration where no MCP
 * server has auth.mode token-exchange or enterprise-managed (infra/bundling.ts, functionSubstitutes).
 * A function that finds such a server anyway fails its cold start, saying why: it must never call
 * a server with the service's identity where agent.yml asks for the caller's.
 */
export type { OnBehalfOfOptions } from '../../lib/adapters/mcp/oauth/on-behalf-of.ts';

export class OnBehalfOf {
  constructor(server: { name: string }) {
    throw new Error(`bundled without on-behalf-of tokens: deploy again with auth.mode token-exchange or enterprise-managed for MCP server "${server.name}" in agent.yml`);
  }
}
