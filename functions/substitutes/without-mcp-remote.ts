/**
 * Stands in for the MCP client's HTTP side (`#mcp-remote`: lib/adapters/mcp/remote.ts, the
 * Streamable HTTP and SSE transports, the stateless era) in the Lambda bundles of a configuration
 * whose MCP servers are all local (infra/bundling.ts, functionSubstitutes; infra/mcp-remote.ts).
 * Nothing here runs: only a server with a `url` reaches it, and a function that finds one anyway
 * fails to connect it, saying why.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export function createRemoteTransport(): Transport {
  throw new Error('bundled without MCP over HTTP: agent.yml named no MCP server with a url when this function was built; deploy again');
}

/** Only a remote transport can be in the stateless era. */
export function statelessEra(): undefined {
  return undefined;
}

export async function endRemoteSession(): Promise<void> {}

/** Only stateless connections judge header declarations, and there are none here. */
export function headerParametersOf(): [] {
  return [];
}

/** A session expires, and OAuth refuses, only on a remote transport: none here. */
export function isSessionExpired(): false {
  return false;
}

export function isUnauthorized(): false {
  return false;
}
