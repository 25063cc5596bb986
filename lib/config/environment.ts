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
  /** Overrides model.provider: openai | bedrock | demo. */
  modelProvider: 'LLM_PROVIDER',
  /** bedrock: another Bedrock Runtime endpoint (a VPC endpoint, a local stand-in), as DYNAMODB_ENDPOINT is for the store. */
  bedrockEndpoint: 'BEDROCK_ENDPOINT',
  /** Overrides conversation.tableName (the stack sets it). */
  conversationsTable: 'CONVERSATIONS_TABLE',
  /** The bundled demo MCP server's entry, named in agent.yml as ${DEMO_MCP_SERVER}. */
  demoMcpServer: 'DEMO_MCP_SERVER',
  /** Where a deployed function reads the model API key at cold start. */
  modelApiKeySecretArn: 'OPENAI_API_KEY_SECRET_ARN',
  modelApiKeyParameterName: 'OPENAI_API_KEY_PARAMETER_NAME',
  /**
   * The deployment's HMAC key (derived conversation ids, page tokens): a Secrets Manager secret a
   * deployed function reads at cold start, or a file (the local run's, under LOCAL_DATA_DIR).
   */
  hmacKeySecretArn: 'HMAC_KEY_SECRET_ARN',
  hmacKeyFile: 'HMAC_KEY_FILE',
  /** none | iam | cognito | oidc: who owns a conversation. */
  authMode: 'AUTH_MODE',
  /**
   * oidc only: the OpenID Connect provider whose JWTs identify callers (its issuer URL, exactly as
   * the tokens' `iss`; https, or http on loopback for a local provider) and the audience the tokens
   * must carry (the client id, or the API's audience). The stack sets both on the authorizer;
   * npm start verifies with them itself.
   */
  oidcIssuer: 'OIDC_ISSUER',
  oidcAudience: 'OIDC_AUDIENCE',
  /**
   * cognito only: the user pool whose tokens API Gateway verifies (`<region>_<id>`; the stack sets
   * it). The MCP server door names it as its authorization server (docs/mcp-server-door.md).
   */
  cognitoUserPoolId: 'COGNITO_USER_POOL_ID',
  /** iam only: principal | role-session: whether an assumed role's session name is part of the owner. */
  ownerFrom: 'OWNER_FROM',
  /**
   * `*`, `none` or comma-separated origins allowed to read API responses (a deployed stack: `*`
   * unless set; npm start: `none`, so only the chat page it serves, on its own origin, reads them).
   */
  corsAllowOrigins: 'CORS_ALLOW_ORIGINS',
  /** The worker announces finished turns on this bus, and reschedules failed records on this queue. */
  eventBusName: 'EVENT_BUS_NAME',
  queueUrl: 'QUEUE_URL',
  /** The queue only the stack's EventBridge rule may send to: its records' sender is the event's source. */
  eventQueueUrl: 'EVENT_QUEUE_URL',
  eventQueueArn: 'EVENT_QUEUE_ARN',
  /** Comma-separated senders whose asynchronous requests may name an owner: event sources, queue, invoke. */
  ownerSources: 'OWNER_SOURCES',
  /**
   * The S3 bucket of the conversations' files (agent.yml `files`; the stack creates it and sets
   * this). Unset in a local run: the files are kept under LOCAL_DATA_DIR, in `files/`.
   */
  filesBucket: 'FILES_BUCKET',
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
  /**
   * npm start only: comma-separated host names it answers for besides localhost, 127.0.0.1, [::1]
   * and HOST (`*`: any); a request whose Host header names another gets 421 (DNS rebinding).
   */
  allowedHosts: 'ALLOWED_HOSTS',
  /**
   * npm start only: a request header the local server takes as the caller API Gateway verified
   * (an authorizer's principalId), so owners and per-owner limits can be tried out locally with
   * AUTH_MODE=cognito. Never set by the stack: behind API Gateway a header proves nothing.
   */
  localCallerHeader: 'LOCAL_CALLER_HEADER',
  /**
   * npm start only, with LOCAL_CALLER_HEADER: a request header whose JSON object stands for the
   * claims the authorizer verified (groups, tenant: the tool policy's principal attributes). Never
   * set by the stack.
   */
  localClaimsHeader: 'LOCAL_CLAIMS_HEADER',
  /** The AWS SDK's own settings: the local run fills them in for an emulator when they are unset. */
  awsRegion: 'AWS_REGION',
  awsDefaultRegion: 'AWS_DEFAULT_REGION',
  awsAccessKeyId: 'AWS_ACCESS_KEY_ID',
  awsSecretAccessKey: 'AWS_SECRET_ACCESS_KEY',
  awsSessionToken: 'AWS_SESSION_TOKEN',
  awsDynamodbEndpoint: 'AWS_ENDPOINT_URL_DYNAMODB',
  /** The AWS SDK's settings the lean AWS clients (lib/adapters/aws/json-client.ts) read as the SDK would. */
  awsEndpointUrl: 'AWS_ENDPOINT_URL',
  awsSecretsManagerEndpoint: 'AWS_ENDPOINT_URL_SECRETS_MANAGER',
  awsUseFipsEndpoint: 'AWS_USE_FIPS_ENDPOINT',
  awsUseDualstackEndpoint: 'AWS_USE_DUALSTACK_ENDPOINT',
  awsMaxAttempts: 'AWS_MAX_ATTEMPTS',
  /**
   * The service's public base URL (scheme, host, stage path; no trailing slash needed), where a
   * provider sends a person back after they connect an account (GET /connections/{server}/callback,
   * docs/users-own-accounts.md). npm start defaults it to the URL it listens on.
   */
  publicBaseUrl: 'PUBLIC_BASE_URL',
  /** The KMS key (id, ARN or alias) that seals per-user connection tokens (the stack creates it when agent.yml has per-user servers). */
  connectionKmsKeyId: 'CONNECTION_KMS_KEY_ID',
  /** Without a KMS key (a local run): the 0600 key file that seals them, created at first use (default: connection-key in LOCAL_DATA_DIR). */
  connectionKeyFile: 'CONNECTION_KEY_FILE',
  /** The Secrets Manager secret holding MCP servers' OAuth tokens (the stack creates it when agent.yml uses OAuth). */
  mcpOAuthTokenSecretArn: 'MCP_OAUTH_TOKEN_SECRET_ARN',
  /**
   * OpenTelemetry (docs/observability.md): where traces and metrics go, as OTLP/HTTP (JSON): the
   * base URL, to which /v1/traces and /v1/metrics are added. Unset: no telemetry, and no SDK loaded.
   * The exporter itself also reads OTEL_EXPORTER_OTLP_HEADERS (an API key, say) and
   * OTEL_RESOURCE_ATTRIBUTES; OTEL_SERVICE_NAME names the service (default POWERTOOLS_SERVICE_NAME).
   */
  otelExporterEndpoint: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  otelServiceName: 'OTEL_SERVICE_NAME',
  /** Set by Lambda itself: a process without it is a local run (npm start, mcp-login, tests). */
  lambdaFunctionName: 'AWS_LAMBDA_FUNCTION_NAME',
  /** Node.js's own options; the stack sets the functions' (infra/function-runtime.ts), nothing here reads it. */
  nodeOptions: 'NODE_OPTIONS',
} as const;

/** A local run, not a Lambda function: OAuth may reach the developer's own servers on loopback. */
export function runsLocally(environment: Environment): boolean {
  return !environment[ENV.lambdaFunctionName];
}

export type Environment = Readonly<Record<string, string | undefined>>;

export type AuthMode = 'none' | 'iam' | 'cognito' | 'oidc';
export const AUTH_MODES: readonly AuthMode[] = ['none', 'iam', 'cognito', 'oidc'];

/**
 * Under iam, what owns the conversations of a caller that signs with an assumed role (identity-pool
 * callers are always scoped to their Cognito identity): `role-session` the role and its session
 * name, `principal` the role alone.
 */
export type OwnerFrom = 'principal' | 'role-session';
export const OWNER_FROM_VALUES: readonly OwnerFrom[] = ['principal', 'role-session'];

/** What a deployed function reads besides agent.yml, checked once at cold start. */
interface DeploymentSettings {
  authMode: AuthMode;
  ownerFrom: OwnerFrom;
  allowedOrigins: string[];
  serviceName: string;
  metricsNamespace: string;
  logLevel?: string;
  modelApiKeySecretArn?: string;
  modelApiKeyParameterName?: string;
  hmacKeySecretArn?: string;
  hmacKeyFile?: string;
  eventBusName?: string;
  queueUrl?: string;
  eventQueueUrl?: string;
  eventQueueArn?: string;
  /** Senders trusted to name an `owner` in an asynchronous request; none by default. */
  ownerSources: string[];
  mcpOAuthTokenSecretArn?: string;
  /** cognito with COGNITO_USER_POOL_ID: the pool's issuer URL, the authorization server of its tokens. */
  cognitoIssuer?: string;
  /** oidc: the provider whose tokens identify callers. */
  oidc?: OidcProviderSettings;
}

export interface OidcProviderSettings {
  issuer: string;
  audience: string;
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
  const authMode = parseAuthMode(text(ENV.authMode));
  return {
    authMode,
    ...(authMode === 'oidc' ? { oidc: readOidcSettings(environment) } : {}),
    ownerFrom: parseOwnerFrom(text(ENV.ownerFrom)),
    allowedOrigins: parseAllowedOrigins(text(ENV.corsAllowOrigins)),
    serviceName: text(ENV.serviceName) ?? 'mcp-agent',
    metricsNamespace: text(ENV.metricsNamespace) ?? 'McpAgent',
    ...optional('logLevel', ENV.logLevel),
    ...optional('modelApiKeySecretArn', ENV.modelApiKeySecretArn),
    ...optional('modelApiKeyParameterName', ENV.modelApiKeyParameterName),
    ...optional('hmacKeySecretArn', ENV.hmacKeySecretArn),
    ...optional('hmacKeyFile', ENV.hmacKeyFile),
    ...optional('eventBusName', ENV.eventBusName),
    ...optional('queueUrl', ENV.queueUrl),
    ...optional('eventQueueUrl', ENV.eventQueueUrl),
    ...optional('eventQueueArn', ENV.eventQueueArn),
    ownerSources: (text(ENV.ownerSources) ?? '').split(',').map((source) => source.trim()).filter(Boolean),
    ...optional('mcpOAuthTokenSecretArn', ENV.mcpOAuthTokenSecretArn),
    ...cognitoIssuerOf(text(ENV.cognitoUserPoolId)),
  };
}

/**
 * A user pool's issuer (the `iss` of its tokens): https://cognito-idp.<region>.amazonaws.com/<pool id>.
 * The pool id starts with its region (`eu-west-1_AbC123`), so nothing else is needed.
 */
function cognitoIssuerOf(userPoolId: string | undefined): { cognitoIssuer?: string } {
  if (userPoolId === undefined) return {};
  const region = /^([a-z]{2}(?:-[a-z]+)+-\d+)_[A-Za-z0-9]+$/.exec(userPoolId)?.[1];
  if (region === undefined) throw new Error(`${ENV.cognitoUserPoolId} must be a user pool id such as eu-west-1_AbC123, not "${userPoolId}"`);
  return { cognitoIssuer: `https://cognito-idp.${region}.amazonaws.com/${userPoolId}` };
}

function parseAuthMode(value: string | undefined): AuthMode {
  if (value === undefined) return 'none';
  if ((AUTH_MODES as readonly string[]).includes(value)) return value as AuthMode;
  throw new Error(`${ENV.authMode} must be none, iam, cognito or oidc, not "${value}"`);
}

/** OIDC_ISSUER and OIDC_AUDIENCE, both required under AUTH_MODE=oidc. */
export function readOidcSettings(environment: Environment): OidcProviderSettings {
  const issuer = environment[ENV.oidcIssuer]?.trim();
  const audience = environment[ENV.oidcAudience]?.trim();
  if (!issuer) throw new Error(`${ENV.authMode}=oidc needs ${ENV.oidcIssuer}: the OpenID Connect provider's issuer URL, such as https://login.example.com/oauth2/default`);
  const problem = oidcIssuerProblem(issuer);
  if (problem) throw new Error(`${ENV.oidcIssuer} ${problem}, not "${issuer}"`);
  if (!audience) throw new Error(`${ENV.authMode}=oidc needs ${ENV.oidcAudience}: the audience its tokens carry (the client id, or the API's audience)`);
  return { issuer, audience };
}

/**
 * What is wrong with an issuer URL, if anything: it must be https (http only on loopback, for a
 * provider on the developer's machine), with no query or fragment (OpenID Connect Discovery).
 */
export function oidcIssuerProblem(issuer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'must be a URL such as https://login.example.com/oauth2/default';
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return 'must be an https URL (http only for a provider on localhost)';
  if (url.search || url.hash || issuer.includes('#')) return 'must have no query or fragment';
  return undefined;
}

function parseOwnerFrom(value: string | undefined): OwnerFrom {
  if (value === undefined) return 'role-session';
  if ((OWNER_FROM_VALUES as readonly string[]).includes(value)) return value as OwnerFrom;
  throw new Error(`${ENV.ownerFrom} must be ${OWNER_FROM_VALUES.join(' or ')}, not "${value}"`);
}

/** `*`, `none` (no other origin: only pages of the API's own origin read it), or origins separated by commas. */
export function parseAllowedOrigins(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return ['*'];
  if (value.trim() === 'none') return [];
  return value.split(',').map((origin) => origin.trim()).filter(Boolean);
}

/** What the local server (npm start) reads. */
interface LocalSettings {
  port: number;
  host: string;
  dataDir: string;
  dynamodbEndpoint?: string;
  /** The header (lower case) taken as the verified caller; see ENV.localCallerHeader. */
  callerHeader?: string;
  /** The header (lower case) taken as the caller's verified claims; see ENV.localClaimsHeader. */
  claimsHeader?: string;
  /** Host names (lower case) answered besides the loopback ones and `host`; `*` answers any. */
  allowedHosts: string[];
  /** AUTH_MODE=oidc: the provider whose bearer tokens npm start verifies itself, as the deployed authorizer does. */
  oidc?: OidcProviderSettings;
}

export function readLocalSettings(environment: Environment): LocalSettings {
  const port = Number(environment[ENV.port] ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${ENV.port} must be a port number, not "${environment[ENV.port]}"`);
  const endpoint = environment[ENV.dynamodbEndpoint]?.trim();
  if (endpoint && !isHttpUrl(endpoint)) {
    throw new Error(`${ENV.dynamodbEndpoint} must be an http:// or https:// URL such as http://localhost:8000, not "${endpoint}"`);
  }
  const callerHeader = environment[ENV.localCallerHeader]?.trim().toLowerCase();
  const claimsHeader = environment[ENV.localClaimsHeader]?.trim().toLowerCase();
  const oidc = environment[ENV.authMode]?.trim() === 'oidc' ? readOidcSettings(environment) : undefined;
  if (oidc && callerHeader) {
    throw new Error(`${ENV.localCallerHeader} stands in for an authorizer; under ${ENV.authMode}=oidc npm start verifies the bearer token itself: unset ${ENV.localCallerHeader}`);
  }
  return {
    port,
    host: environment[ENV.host] || '127.0.0.1',
    dataDir: localDataDir(environment),
    allowedHosts: (environment[ENV.allowedHosts] ?? '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean),
    ...(endpoint ? { dynamodbEndpoint: endpoint } : {}),
    ...(callerHeader ? { callerHeader } : {}),
    ...(claimsHeader ? { claimsHeader } : {}),
    ...(oidc ? { oidc } : {}),
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** The local data folder: dynalite's tables and the MCP OAuth token file live under it. */
export function localDataDir(environment: Environment): string {
  return environment[ENV.localDataDir] || '.data';
}

/** Where OpenTelemetry exports, when it does (ENV.otelExporterEndpoint). */
export interface TelemetrySettings {
  endpoint: string;
  serviceName: string;
}

/** The telemetry settings, or undefined when OTEL_EXPORTER_OTLP_ENDPOINT is unset (telemetry off). */
export function readTelemetrySettings(environment: Environment): TelemetrySettings | undefined {
  const endpoint = environment[ENV.otelExporterEndpoint]?.trim();
  if (!endpoint) return undefined;
  try {
    new URL(endpoint);
  } catch {
    throw new Error(`${ENV.otelExporterEndpoint} must be a URL such as http://localhost:4318, not "${endpoint}"`);
  }
  const serviceName = environment[ENV.otelServiceName]?.trim() || environment[ENV.serviceName]?.trim() || 'mcp-agent';
  return { endpoint: endpoint.replace(/\/+$/, ''), serviceName };
}
