/**
 * Stands in for DPoP (`#mcp-oauth-dpop`: lib/adapters/mcp/oauth/dpop.ts), workload identity
 * (`#mcp-oauth-workload`: lib/adapters/mcp/oauth/workload-assertion.ts) and the OAuth client
 * (`#mcp-oauth-client`: lib/adapters/mcp/oauth/service-authorization.ts) in the Lambda bundles of a
 * configuration whose MCP servers have no `oauth` block (infra/bundling.ts, functionSubstitutes).
 * Without such a block no OAuth provider is made; a function that makes one anyway fails, saying
 * why, rather than sending tokens without the proofs agent.yml asked for.
 */
const MISSING = 'bundled without MCP OAuth: deploy again with the oauth block in agent.yml';

export class DpopBinding {
  constructor() {
    throw new Error(MISSING);
  }
}

export class WorkloadAssertion {
  constructor() {
    throw new Error(MISSING);
  }
}

export class ServerOAuthProvider {
  constructor() {
    throw new Error(MISSING);
  }
}

export function serverAuthorization(): never {
  throw new Error(MISSING);
}
