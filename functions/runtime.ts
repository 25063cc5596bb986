/**
 * What every Lambda entry shares, built once per container (cold start): the configuration, the
 * model API key from Secrets Manager or SSM, Powertools logger, metrics and tracer, the SDK clients
 * (traced), and the agent. A configuration or secret error fails the cold start, loudly.
 *
 * Environment (set by the CDK stack; loadConfig reads the model and table overrides):
 *   AGENT_CONFIG                      the bundled agent.yml
 *   DEMO_MCP_SERVER                   the bundled demo MCP server, named in agent.yml
 *   CONVERSATIONS_TABLE               the DynamoDB table
 *   OPENAI_BASE_URL, LLM_MODEL        the model endpoint and name, when the stack sets them
 *   OPENAI_API_KEY_SECRET_ARN         a Secrets Manager secret with the model API key, or
 *   OPENAI_API_KEY_PARAMETER_NAME     an SSM parameter with it
 *   AUTH_MODE                         none | iam | cognito: who owns a conversation
 *   CORS_ALLOW_ORIGINS                `*` or comma-separated origins allowed to read API responses
 *   MCP_OAUTH_TOKEN_SECRET_ARN        the secret keeping MCP servers' OAuth tokens (when agent.yml uses OAuth)
 * The worker also reads EVENT_BUS_NAME and QUEUE_URL (functions/worker.ts).
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { Logger } from '@aws-lambda-powertools/logger';
import type { LogLevel } from '@aws-lambda-powertools/logger/types';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { readModelApiKey } from '../lib/adapters/aws/model-api-key.ts';
import { usesOAuth } from '../lib/adapters/mcp/oauth/attach.ts';
import { createDynamoDocumentClient } from '../lib/adapters/dynamodb/client.ts';
import { contextualLogger } from '../lib/core/log-context.ts';
import { powertoolsLogger } from '../lib/adapters/powertools/logger.ts';
import { powertoolsTurnMetrics } from '../lib/adapters/powertools/metrics.ts';
import { ENV, readDeploymentSettings } from '../lib/config/environment.ts';
import { buildAgent, loadConfig } from '../lib/index.ts';
import { mcpOAuthTokenStore } from './mcp-oauth-store.ts';

export const settings = readDeploymentSettings(process.env);

export const tracer = new Tracer({ serviceName: settings.serviceName });
export const metrics = new Metrics({
  namespace: settings.metricsNamespace,
  serviceName: settings.serviceName,
  // Health checks and rejected requests record no metrics by design; Powertools would warn on each.
  logger: { ...console, warn: (...parts: unknown[]) => String(parts[0]).startsWith('No application metrics to publish') || console.warn(...parts) },
});

const apiKey = await readModelApiKey({
  ...(settings.modelApiKeySecretArn ? { secretId: settings.modelApiKeySecretArn } : {}),
  ...(settings.modelApiKeyParameterName ? { parameterName: settings.modelApiKeyParameterName } : {}),
  secretsManager: () => tracer.captureAWSv3Client(new SecretsManagerClient({})),
  ssm: () => tracer.captureAWSv3Client(new SSMClient({})),
});
export const config = loadConfig({ environment: apiKey ? { ...process.env, [ENV.modelApiKey]: apiKey } : process.env });

export const powertools = new Logger({ serviceName: settings.serviceName, logLevel: (settings.logLevel ?? config.logging.level.toUpperCase()) as LogLevel });
export const logger = contextualLogger(powertoolsLogger(powertools));
const keySource = settings.modelApiKeySecretArn ?? settings.modelApiKeyParameterName;
if (!apiKey && keySource) {
  logger.warn('the model API key is not stored yet: questions get 503 until it is', { source: keySource });
}

export const agent = buildAgent(config, {
  logger,
  ...(usesOAuth(config.mcpServers)
    ? { oauthTokenStore: await mcpOAuthTokenStore(process.env, () => tracer.captureAWSv3Client(new SecretsManagerClient({}))) }
    : {}),
  metrics: powertoolsTurnMetrics(metrics),
  documentClient: createDynamoDocumentClient(config.conversation, { instrument: (client) => tracer.captureAWSv3Client(client) }),
});

/** The caller's identity under the configured auth mode; conversations are scoped to it. */
export const authMode = settings.authMode;

/** Origins whose browsers may read the API's responses (the stack passes its CORS setting). */
export const allowedOrigins = settings.allowedOrigins;
