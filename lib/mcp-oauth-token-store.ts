/**
 * Which token store holds MCP OAuth tokens, for every entry point (the Lambda functions, the local
 * server, the login command): the Secrets Manager secret named by MCP_OAUTH_TOKEN_SECRET_ARN when
 * it is set (the stack sets it; an operator sets it to log a deployment in), else the 0600 file
 * mcp-oauth-tokens.json under the local data folder. The AWS SDK is loaded only for the secret.
 */
import { join, resolve } from 'node:path';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createFileTokenStore, TOKEN_FILE_NAME } from './adapters/mcp/oauth/file-store.ts';
import type { OAuthTokenStore } from './adapters/mcp/oauth/store.ts';
import { ENV, localDataDir, type Environment } from './config/environment.ts';
import { ConfigError } from './core/errors.ts';

export async function mcpOAuthTokenStore(
  environment: Environment,
  secretsManager: () => SecretsManagerClient | Promise<SecretsManagerClient>,
): Promise<OAuthTokenStore> {
  const secretId = environment[ENV.mcpOAuthTokenSecretArn]?.trim();
  if (secretId) {
    const { createSecretsManagerTokenStore } = await import('./adapters/aws/mcp-oauth-token-secret.ts');
    return createSecretsManagerTokenStore({ client: await secretsManager(), secretId });
  }
  if (environment['AWS_LAMBDA_FUNCTION_NAME']) {
    // A function's file system is read-only and not shared: tokens kept there would be lost.
    throw new ConfigError(
      `agent.yml configures OAuth for an MCP server, but ${ENV.mcpOAuthTokenSecretArn} is not set: deploy with the stack in infra/, which creates the token secret and sets it`,
    );
  }
  return createFileTokenStore(resolve(join(localDataDir(environment), TOKEN_FILE_NAME)));
}
