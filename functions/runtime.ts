/**
 * What every Lambda entry shares, built once per container (cold start): the configuration, the
 * model API key from Secrets Manager or SSM, Powertools logger and metrics, the DynamoDB client, and
 * the agent. A configuration or secret error fails the cold start, loudly.
 *
 * Environment (set by the CDK stack; loadConfig reads the model and table overrides):
 *   AGENT_CONFIG                      the bundled agent.yml
 *   DEMO_MCP_SERVER                   the bundled demo MCP server, named in agent.yml
 *   CONVERSATIONS_TABLE               the DynamoDB table
 *   OPENAI_BASE_URL, LLM_MODEL        the model endpoint and name, when the stack sets them
 *   OPENAI_API_KEY_SECRET_ARN         a Secrets Manager secret with the model API key, or
 *   OPENAI_API_KEY_PARAMETER_NAME     an SSM parameter with it
 *   HMAC_KEY_SECRET_ARN               the deployment's HMAC key (derived conversation ids, page
 *                                     tokens), or HMAC_KEY_FILE locally; neither: one per container
 *   AUTH_MODE                         none | iam | cognito | oidc: who owns a conversation (oidc: with OIDC_ISSUER, OIDC_AUDIENCE)
 *   OWNER_FROM                        iam: principal | role-session (an assumed role's session name counts)
 *   COGNITO_USER_POOL_ID              cognito: the pool whose issuer the MCP server door names (docs/mcp-server-door.md)
 *   CORS_ALLOW_ORIGINS                `*`, `none` or comma-separated origins allowed to read API responses
 *   MCP_OAUTH_TOKEN_SECRET_ARN        the secret keeping MCP servers' OAuth tokens (when agent.yml uses OAuth)
 * The worker also reads EVENT_BUS_NAME, QUEUE_URL, EVENT_QUEUE_URL, EVENT_QUEUE_ARN and
 * OWNER_SOURCES (functions/worker.ts).
 */
import { SSMClient } from '@aws-sdk/client-ssm';
import { Logger } from '@aws-lambda-powertools/logger';
import type { LogLevel } from '@aws-lambda-powertools/logger/types';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { readHmacKey } from '../lib/adapters/aws/hmac-key.ts';
import { readModelApiKey } from '../lib/adapters/aws/model-api-key.ts';
import { usesOAuth } from '../lib/adapters/mcp/oauth/attach.ts';
import { contextualLogger } from '../lib/core/log-context.ts';
import { powertoolsLogger } from '../lib/adapters/powertools/logger.ts';
import { powertoolsTurnMetrics } from '../lib/adapters/powertools/metrics.ts';
import { ENV, readDeploymentSettings } from '../lib/config/environment.ts';
import { serviceIdentityServers } from '../lib/config/per-user-servers.ts';
import { buildAgent, loadConfig } from '../lib/index.ts';
import { leanDynamoFromEnvironment } from '../lib/lean-dynamo.ts';
import { leanSecretsFromEnvironment } from '../lib/lean-secrets.ts';
import { loadLocalHmacKey } from '../lib/local/hmac-key.ts';
import { mcpOAuthTokenStore } from '../lib/mcp-oauth-token-store.ts';
import { loadTelemetry } from '#telemetry';

export const settings = readDeploymentSettings(process.env);

export const metrics = new Metrics({
  namespace: settings.metricsNamespace,
  serviceName: settings.serviceName,
  // Health checks and rejected requests record no metrics by design; Powertools would warn on each.
  logger: { ...console, warn: (...parts: unknown[]) => String(parts[0]).startsWith('No application metrics to publish') || console.warn(...parts) },
});

// Secrets Manager without the AWS SDK's client (lib/lean-secrets.ts): none is loaded by a cold start.
const readSecret = leanSecretsFromEnvironment(process.env);
// Both secrets at once: each read is a round trip of the cold start.
const [apiKey, hmacKey] = await Promise.all([
  readModelApiKey({
    ...(settings.modelApiKeySecretArn ? { secretId: settings.modelApiKeySecretArn } : {}),
    ...(settings.modelApiKeyParameterName ? { parameterName: settings.modelApiKeyParameterName } : {}),
    readSecret,
    ssm: () => new SSMClient({}),
  }),
  settings.hmacKeyFile && !settings.hmacKeySecretArn
    ? loadLocalHmacKey(settings.hmacKeyFile)
    : readHmacKey({ ...(settings.hmacKeySecretArn ? { secretId: settings.hmacKeySecretArn } : {}), readSecret }),
]);
export const config = loadConfig({ environment: apiKey ? { ...process.env, [ENV.modelApiKey]: apiKey } : process.env });

export const powertools = new Logger({ serviceName: settings.serviceName, logLevel: (settings.logLevel ?? config.logging.level.toUpperCase()) as LogLevel });
export const logger = contextualLogger(powertoolsLogger(powertools));
const keySource = settings.modelApiKeySecretArn ?? settings.modelApiKeyParameterName;
if (!apiKey && keySource) {
  logger.warn('the model API key is not stored yet: questions get 503 until it is', { source: keySource });
}

// OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/observability.md); otherwise nothing is loaded.
const telemetry = await loadTelemetry(config, process.env);

export const agent = buildAgent(config, {
  logger,
  ...(telemetry ? { telemetry } : {}),
  ...(hmacKey ? { hmacKey } : {}),
  ...(usesOAuth(serviceIdentityServers(config.mcpServers))
    ? { oauthTokenStore: await mcpOAuthTokenStore(process.env, async () => new (await import('@aws-sdk/client-secrets-manager')).SecretsManagerClient({})) }
    : {}),
  metrics: powertoolsTurnMetrics(metrics),
  // DynamoDB without the AWS SDK's client: about 70 ms less CPU per cold start (docs/deploying.md).
  dynamo: leanDynamoFromEnvironment(config.conversation, process.env),
});

/** How callers are told apart (auth mode, and for iam whether a role's session name counts); conversations are scoped to it. */
export const callerIdentity = { authMode: settings.authMode, ownerFrom: settings.ownerFrom };

/** Origins whose browsers may read the API's responses (the stack passes its CORS setting). */
export const allowedOrigins = settings.allowedOrigins;
