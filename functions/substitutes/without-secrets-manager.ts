/**
 * Stands in for `@aws-sdk/client-secrets-manager` in the Lambda bundles of a deployment whose
 * agent.yml gives no MCP server an `oauth` block (infra/bundling.ts, functionSubstitutes): the
 * cold start reads its secrets without the SDK (lib/lean-secrets.ts), and only the OAuth token
 * store (lib/adapters/aws/mcp-oauth-token-secret.ts) still uses the SDK's client, to write the
 * tokens back. About 100 KB of every bundle otherwise.
 */
const NOT_BUNDLED = 'this bundle was built without the Secrets Manager client: it is bundled where agent.yml gives an MCP server an oauth block';

export class SecretsManagerClient {
  constructor() {
    throw new Error(NOT_BUNDLED);
  }
}

export class GetSecretValueCommand {
  constructor() {
    throw new Error(NOT_BUNDLED);
  }
}

export class PutSecretValueCommand {
  constructor() {
    throw new Error(NOT_BUNDLED);
  }
}
