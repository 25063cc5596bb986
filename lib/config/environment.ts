/**
 * Every environment variable the service reads, named once: the CDK stack imports these names to
 * set them, and nothing else in lib/ or functions/ reads `process.env` by another name.
 */
export const ENV = {
  /** agent.yml to read (default: agent.yml in the working directory). */
  agentConfig: 'AGENT_CONFIG',
  /** Override model.baseURL, model.apiKey and model.name of agent.yml. */
  modelBaseUrl: 'OPENAI_BASE_URL',
  modelApiKey: 'OPENAI_API_KEY',
  modelName: 'LLM_MODEL',
  /** Overrides conversation.tableName (the stack sets it). */
  conversationsTable: 'CONVERSATIONS_TABLE',
  /** The bundled demo MCP server's entry, named in agent.yml as ${DEMO_MCP_SERVER}. */
  demoMcpServer: 'DEMO_MCP_SERVER',
  /** Where a deployed function reads the model API key at cold start. */
  modelApiKeySecretArn: 'OPENAI_API_KEY_SECRET_ARN',
  modelApiKeyParameterName: 'OPENAI_API_KEY_PARAMETER_NAME',
  /** none | iam | cognito: who owns a conversation. */
  authMode: 'AUTH_MODE',
  /** `*` or comma-separated origins allowed to read API responses. */
  corsAllowOrigins: 'CORS_ALLOW_ORIGINS',
  /** The worker announces finished turns on this bus, and reschedules failed records on this queue. */
  eventBusName: 'EVENT_BUS_NAME',
  queueUrl: 'QUEUE_URL',
  /** A DynamoDB endpoint to use instead of the embedded store (DynamoDB Local, LocalStack, AWS). */
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
  /** Powertools' own settings. */
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  logLevel: 'POWERTOOLS_LOG_LEVEL',
  /** The local server (npm start). */
  port: 'PORT',
  host: 'HOST',
  localDataDir: 'LOCAL_DATA_DIR',
  /** The Secrets Manager secret holding MCP servers' OAuth tokens (the stack creates it when agent.yml uses OAuth). */
  mcpOAuthTokenSecretArn: 'MCP_OAUTH_TOKEN_SECRET_ARN',
} as const;

export type Environment = Readonly<Record<string, string | undefined>>;

export type AuthMode = 'none' | 'iam' | 'cognito';

/** What a deployed function reads besides agent.yml, checked once at cold start. */
export interface DeploymentSettings {
  authMode: AuthMode;
  allowedOrigins: string[];
  serviceName: string;
  metricsNamespace: string;
  logLevel?: string;
  modelApiKeySecretArn?: string;
  modelApiKeyParameterName?: string;
  eventBusName?: string;
  queueUrl?: string;
  mcpOAuthTokenSecretArn?: string;
}

export function readDeploymentSettings(environment: Environment): DeploymentSettings {
  const text = (name: string): string | undefined => {
    const value = environment[name]?.trim();
    return value ? value : undefined;
  };
  const optional = <Key extends string>(key: Key, name: string) => {
    const value = text(name);
    return value === undefined ? {} : ({ [key]: value } as Record<Key, string>);
  };
  return {
    authMode: parseAuthMode(text(ENV.authMode)),
    allowedOrigins: parseAllowedOrigins(text(ENV.corsAllowOrigins)),
    serviceName: text(ENV.serviceName) ?? 'mcp-agent',
    metricsNamespace: text(ENV.metricsNamespace) ?? 'McpAgent',
    ...optional('logLevel', ENV.logLevel),
    ...optional('modelApiKeySecretArn', ENV.modelApiKeySecretArn),
    ...optional('modelApiKeyParameterName', ENV.modelApiKeyParameterName),
    ...optional('eventBusName', ENV.eventBusName),
    ...optional('queueUrl', ENV.queueUrl),
    ...optional('mcpOAuthTokenSecretArn', ENV.mcpOAuthTokenSecretArn),
  };
}

function parseAuthMode(value: string | undefined): AuthMode {
  if (value === undefined || value === 'none') return 'none';
  if (value === 'iam' || value === 'cognito') return value;
  throw new Error(`${ENV.authMode} must be none, iam or cognito, not "${value}"`);
}

/** `*`, or origins separated by commas. */
export function parseAllowedOrigins(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return ['*'];
  return value.split(',').map((origin) => origin.trim()).filter(Boolean);
}

/** What the local server (npm start) reads. */
export interface LocalSettings {
  port: number;
  host: string;
  dataDir: string;
  dynamodbEndpoint?: string;
}

export function readLocalSettings(environment: Environment): LocalSettings {
  const port = Number(environment[ENV.port] ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${ENV.port} must be a port number, not "${environment[ENV.port]}"`);
  const endpoint = environment[ENV.dynamodbEndpoint]?.trim();
  return {
    port,
    host: environment[ENV.host] || '127.0.0.1',
    dataDir: localDataDir(environment),
    ...(endpoint ? { dynamodbEndpoint: endpoint } : {}),
  };
}

/** The local data folder: dynalite's tables and the MCP OAuth token file live under it. */
export function localDataDir(environment: Environment): string {
  return environment[ENV.localDataDir] || '.data';
}
