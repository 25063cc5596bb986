/**
 * What an operator can choose at deploy time. Each setting is also a CDK context key of the same
 * name (`npx cdk deploy -c authMode=cognito`, or the "context" block of cdk.json); context.ts reads
 * and validates them. Every setting is optional.
 */
export type { AuthMode, OwnerFrom } from '../lib/config/environment.ts';
import type { AuthMode, OwnerFrom } from '../lib/config/environment.ts';

/** Who answers the functions' model calls (agent.yml `model.provider`). */
export type ModelProvider = 'openai' | 'bedrock' | 'demo';
export const MODEL_PROVIDERS: readonly ModelProvider[] = ['openai', 'bedrock', 'demo'];

export interface AgentSettings {
  /**
   * Who may call the API, and who owns a conversation.
   * - `iam` (default): every method requires a SigV4-signed request; a conversation belongs to the
   *   caller's IAM principal. The safer default for an API that runs a paid model.
   * - `cognito`: every method requires a Cognito user pool ID token in the Authorization header; a
   *   conversation belongs to the token's `sub`.
   * - `none`: open to anyone who knows the URL; conversations are shared by id. Demos only.
   */
  authMode?: AuthMode;
  /**
   * With `iam`: what owns the conversations of a caller signing with an assumed role. `role-session`
   * (default): the role and its session name; `principal`: the role alone, shared by its sessions.
   * Cognito identity-pool callers are always scoped to their identity id.
   */
  ownerFrom?: OwnerFrom;
  /** With `cognito`: an existing user pool's ARN. Absent, the stack creates a pool and an app client. */
  userPoolArn?: string;
  /**
   * The model API key's home: a Secrets Manager secret (its complete ARN), or an SSM parameter (its
   * name; SecureString under the AWS-managed key). Give at most one. With neither, the stack creates
   * an empty secret (output ModelApiKeySecretArn) to fill in after deploy. The key itself never
   * appears in the template or in a function's environment: the functions read it at cold start.
   */
  modelApiKeySecretArn?: string;
  modelApiKeyParameterName?: string;
  /** The OpenAI-compatible endpoint (OPENAI_BASE_URL); agent.yml's `model.baseURL` otherwise. */
  modelBaseUrl?: string;
  /** The model name (LLM_MODEL); agent.yml's `model.name` otherwise. With Bedrock: a model id, an inference profile id or an ARN. */
  modelName?: string;
  /**
   * The model provider (LLM_PROVIDER); agent.yml's `model.provider` otherwise (default `openai`).
   * With `bedrock` the stack creates no model-key secret and lets the conversation functions invoke
   * exactly the configured model with their IAM role (infra/bedrock-access.ts).
   */
  modelProvider?: ModelProvider;
  /** Bedrock: the regions a geographic inference profile routes to, when they differ from those the stack knows. */
  modelRegions?: string[];
  /** What happens to the table, log groups, secret and user pool when the stack is deleted. Default `retain`. */
  removalPolicy?: 'retain' | 'destroy';
  /** Origins allowed by CORS. Default: all origins. */
  corsAllowOrigins?: string[];
  /** Stage-wide steady request rate (requests per second) and burst. Defaults 20 and 40. */
  throttleRateLimit?: number;
  throttleBurstLimit?: number;
  /**
   * Receives before an asynchronous turn request moves to the dead-letter queue. Default 5: with
   * the worker's doubling backoff (60 s, 120 s, 240 s, 480 s) a request waits out about 15 minutes
   * of a busy conversation before it is given up.
   */
  maxReceiveCount?: number;
  /** Worker invocations the queue may run at once (each up to 5 turns). Default 10. */
  workerMaxConcurrency?: number;
  /** The agent.yml bundled with the functions, relative to the repository root. Default `agent.yml`. */
  agentConfig?: string;
  /**
   * The EventBridge sources whose AgentTurnRequested and AgentApprovalDecided events the rule
   * queues for the worker, and that the bus accepts those events from. Default: none (only the
   * stack's own source, which only the worker may put).
   */
  eventSources?: string[];
  /**
   * The senders whose asynchronous requests may name an `owner` (act for a user): event sources
   * from eventSources, `queue` (plain SQS messages) and `invoke` (direct invokes). Default: none,
   * so an `owner` in an asynchronous request is refused.
   */
  ownerSources?: string[];
  /**
   * OpenTelemetry (docs/observability.md): the OTLP/HTTP endpoint the functions export traces and
   * metrics to (OTEL_EXPORTER_OTLP_ENDPOINT), e.g. the ADOT collector extension's
   * http://localhost:4318. Only then are the SDK and exporters bundled. Default: none.
   */
  otelExporterEndpoint?: string;
  /**
   * Per-user servers (docs/users-own-accounts.md): the service's public base URL, where providers
   * send people back after they connect an account (<url>/connections/{server}/callback), when it is
   * not the API's own execute-api URL (a custom domain). Default: https://<api id>.execute-api.<region>.amazonaws.com/prod.
   */
  publicBaseUrl?: string;
}

/** The defaults, in one place (docs/deploying.md's table of context keys). */
export const DEFAULT_SETTINGS = {
  authMode: 'iam',
  ownerFrom: 'role-session',
  removalPolicy: 'retain',
  corsAllowOrigins: ['*'],
  // Every request may start a model loop of several paid calls: a modest stage limit bounds what a
  // runaway client can spend. Raise it with context when real traffic needs more.
  throttleRateLimit: 20,
  throttleBurstLimit: 40,
  maxReceiveCount: 5,
  workerMaxConcurrency: 10,
  agentConfig: 'agent.yml',
  eventSources: [],
  ownerSources: [],
} as const satisfies AgentSettings;
