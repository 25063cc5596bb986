/**
 * `npm run mcp-login -- <server>`: an operator authorizes the service once for a remote MCP server
 * of agent.yml that has an `oauth` block (authorization_code): the command prints the
 * authorization URL, waits on the configured loopback redirect URL for the browser to come back,
 * exchanges the code (PKCE) and stores the tokens. From then on refresh tokens keep the server
 * usable without a person. For a client_credentials server it fetches and stores a token, which
 * checks the credentials.
 *
 * Tokens go where the service reads them: the 0600 file under LOCAL_DATA_DIR, or, when
 * MCP_OAUTH_TOKEN_SECRET_ARN names the stack's secret (output McpOAuthTokenSecretArn, with AWS
 * credentials in the environment), that secret. Nothing secret is printed.
 */
import { listenForCallback } from '../lib/adapters/mcp/oauth/callback-listener.ts';
import { completeLogin, findLoginServer, LOGIN_TIMEOUT_MS, startLogin, type LoginDependencies } from '../lib/adapters/mcp/oauth/login.ts';
import type { Environment } from '../lib/config/environment.ts';
import { loadConfig } from '../lib/config/load.ts';
import { errorMessage } from '../lib/core/errors.ts';
import { createJsonLogger } from '../lib/core/logger.ts';
import { mcpOAuthTokenStore } from '../lib/mcp-oauth-token-store.ts';

interface LoginCommandOptions {
  environment: Environment;
  /** One line of output for the operator. */
  say(line: string): void;
}

/** The command's work, for its own process or for a caller that already runs one (the conformance client). */
export async function runMcpLogin(name: string, { environment, say }: LoginCommandOptions): Promise<void> {
  const config = loadConfig({ environment });
  const server = findLoginServer(config, name);
  const dependencies: LoginDependencies = {
    store: await mcpOAuthTokenStore(environment, async () => new (await import('@aws-sdk/client-secrets-manager')).SecretsManagerClient({})),
    logger: createJsonLogger('warn'),
  };
  say(`MCP server "${name}" at ${server.url} (${server.oauth.grant}); tokens are kept in ${dependencies.store.location}.`);

  if (server.oauth.grant !== 'authorization_code') {
    await startLogin(server, dependencies);
    say(`Obtained a token with ${server.oauth.grant} and stored it. No person is needed for this server: the service fetches tokens itself.`);
    return;
  }

  // Listening first: a port already in use fails before an authorization is started.
  const listener = await listenForCallback(server.oauth.redirectUrl, async (query) => {
    await completeLogin(server, dependencies, query);
  });
  try {
    const started = await startLogin(server, dependencies);
    if (started.status === 'authorized') {
      say('Authorized without a person.');
      return;
    }
    say(`Open this URL in a browser and authorize${started.scope ? ` (scope: ${started.scope})` : ''}:`);
    say('');
    say(started.authorizationUrl.href);
    say('');
    say(`Waiting for the authorization server to send the browser back to ${started.redirectUrl} ...`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`nobody completed the authorization within ${LOGIN_TIMEOUT_MS / 60_000} minutes`)), LOGIN_TIMEOUT_MS);
    });
    try {
      await Promise.race([listener.finished, timeout]);
    } finally {
      clearTimeout(timer);
    }
    say(`Authorized: the tokens of "${name}" are stored in ${dependencies.store.location}. Running services pick them up on their next attempt.`);
  } finally {
    await listener.close();
  }
}

if (import.meta.main) {
  const say = (line: string) => process.stdout.write(line + '\n');
  const argv = process.argv.slice(2);
  const name = argv.find((argument) => !argument.startsWith('-'));
  if (!name || argv.includes('--help')) {
    say('Usage: npm run mcp-login -- <server>   (a remote MCP server of agent.yml with an oauth block; AGENT_CONFIG selects the file)');
    process.exitCode = name ? 0 : 2;
  } else {
    try {
      await runMcpLogin(name, { environment: process.env, say });
    } catch (error) {
      process.stderr.write(`mcp-login: ${errorMessage(error)}\n`);
      process.exitCode = 1;
    }
  }
}
