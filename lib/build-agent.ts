import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDocuments } from './adapters/dynamodb/documents.ts';
import { documentsFromClient } from './adapters/dynamodb/sdk-documents.ts';
import { createDynamoOwnerCounters } from './adapters/dynamodb/owner-counters.ts';
import { createDynamoNoteStore } from './adapters/dynamodb/note-store.ts';
import { createPythonSandbox } from '#python-sandbox';
import { createMemoryOwnerCounters } from './adapters/memory/owner-counters.ts';
import { createDynamoConversationStore } from './adapters/dynamodb/store.ts';
import type { OAuthTokenStore } from './adapters/mcp/oauth/store.ts';
import { createAgent } from './create-agent.ts';
import { type Agent } from './agent/agent-api.ts';
import type { AgentExtension } from './agent/extension-api/extension.ts';
import { mcpClientExtensions } from './extensions/mcp/extensions.ts';
import type { TurnStrategy } from './agent/loop/turn-strategy.ts';
import { createServerRequestRouter } from './extensions/mcp/request-router.ts';
import type { AgentInstrumentation } from './extensions/telemetry/instrumentation.ts';
import type { AgentConfig } from './config/load.ts';
import type { CodeFilesFor, CodeSandbox } from './core/ports/code-sandbox.ts';
import { contextualLogger } from './core/log-context.ts';
import { createJsonLogger, type Logger } from './core/logger.ts';
import type { ConversationStore } from './core/ports/conversation-store.ts';
import type { ModelClient } from './core/ports/model.ts';
import type { NoteStore } from './core/ports/notes.ts';
import type { OwnerCounters } from './core/ports/owner-counters.ts';
import type { ToolGateway } from './core/ports/tools.ts';
import type { TurnMetrics } from './core/ports/metrics.ts';
import { createConfiguredGateway } from './configured-gateway.ts';
import { createConfiguredModel, modelNotConfigured as modelNotConfiguredText } from './providers/configured-model.ts';
import { configuredFileStore } from '#file-stores';
import { configuredCallPolicy } from '#call-policy';
import { configuredConnections } from '#per-user-connections';
import type { ConnectionStore } from './adapters/mcp/per-user/connection-store.ts';
import type { RecordSealer } from './adapters/mcp/per-user/sealer.ts';
import type { CallPolicy } from './core/ports/call-policy.ts';
import type { FileStore } from './core/ports/file-store.ts';

interface CommonOptions {
  /** Replace a part, e.g. a scripted model in tests. */
  model?: ModelClient;
  gateway?: ToolGateway;
  logger?: Logger;
  metrics?: TurnMetrics;
  /**
   * The deployment's secret for derived conversation ids and page tokens (createAgent's hmacKey).
   * Give every process of a deployment the same one; without it each agent draws its own.
   */
  hmacKey?: Uint8Array;
  /**
   * Where OAuth tokens of remote MCP servers are kept (servers with an `oauth` block). Default: the
   * file mcp-oauth-tokens.json under the local data folder (LOCAL_DATA_DIR, `.data`).
   */
  oauthTokenStore?: OAuthTokenStore;
  /** Your own extensions of the loop (lib/agent/extension-api/extension.ts), run after the strategies agent.yml turns on. */
  extensions?: AgentExtension[];
  /** Your own turn strategy (lib/agent/loop/turn-strategy.ts), in place of agent.yml's `strategy`. */
  strategy?: TurnStrategy;
  /**
   * The budgets' per-owner counters (agent.yml `limits`). Default: in the conversation table with
   * a documentClient (or `dynamo`); in this process's memory with a store of your own.
   */
  ownerCounters?: OwnerCounters;
  /**
   * Where memory notes are kept (memory: true). Default: the DynamoDB table, beside the
   * conversations, when you give a documentClient (or `dynamo`); with a store of your own, give this too.
   */
  notes?: NoteStore;
  /** OpenTelemetry's spans and metrics (loadTelemetry in lib/telemetry.ts); none without it. */
  telemetry?: AgentInstrumentation;
  /**
   * Where the conversations' files are kept (files: true). Default: the S3 bucket of FILES_BUCKET,
   * or in a local run the folder `files/` under the local data folder.
   */
  files?: FileStore;
  /**
   * The code interpreter (codeInterpreter: true): where it runs Python (default: Pyodide in worker
   * threads, createPythonSandbox) and the conversations' files it reads and writes (default: none).
   */
  codeSandbox?: CodeSandbox;
  codeFiles?: CodeFilesFor;
  /** Who may call which tool with which arguments. Default: agent.yml's toolPolicy (Cedar), none without one. */
  callPolicy?: CallPolicy;
  /**
   * Per-user connections (servers with auth.mode: per-user): where they are kept (default: the
   * table, with a documentClient; memory otherwise) and what seals their tokens (default: the KMS
   * key of CONNECTION_KMS_KEY_ID, or locally a 0600 key file; docs/users-own-accounts.md).
   */
  connectionStore?: ConnectionStore;
  connectionSealer?: RecordSealer;
}

/**
 * The conversation store: the DynamoDB table of `conversation.tableName` through the document
 * client you built (region, credentials, endpoint are yours to choose), or through `dynamo`, the
 * DynamoDB operations the adapters send (the Lambda functions give the lean client of
 * lib/adapters/dynamodb/lean-documents.ts, docs/deploying.md), or a store of your own.
 */
export type BuildAgentOptions = CommonOptions & (
  | { documentClient: DynamoDBDocumentClient; dynamo?: undefined; store?: undefined }
  | { dynamo: DynamoDocuments; documentClient?: undefined; store?: undefined }
  | { store: ConversationStore; documentClient?: undefined; dynamo?: undefined }
);

/**
 * Builds an agent from a configuration with the real adapters: the model of `model.provider`
 * (OpenAI-compatible, Bedrock, or the offline stand-in), the MCP servers of `mcpServers`, and the
 * conversation store. Nothing connects until the first question, health check or `agent.connect()`
 * (which the Lambda functions call while they load): MCP servers start then and are kept warm.
 */
export function buildAgent(config: AgentConfig, options: BuildAgentOptions): Agent {
  // Lines logged during a turn carry its conversation and request ids (lib/core/log-context.ts).
  const logger = contextualLogger(options.logger ?? createJsonLogger(config.logging.level));
  // The provider of model.provider builds the model, or says what it lacks (lib/providers/configured-model.ts).
  const model = options.model ?? createConfiguredModel(config.model, { logger, environment: process.env });
  const modelNotConfigured = options.model ? undefined : modelNotConfiguredText(config.model, process.env);
  // Servers' questions and sampling reach the turn whose call caused them through the router.
  const router = options.gateway ? undefined : createServerRequestRouter(logger);
  const serviceGateway = options.gateway ?? createConfiguredGateway(config, {
    logger,
    ...(options.oauthTokenStore ? { oauthTokenStore: options.oauthTokenStore } : {}),
    ...(router ? { onElicitation: router.onElicitation, onSampling: router.onSampling } : {}),
  });
  // The table's operations: through the embedder's document client, or the lean client given.
  const dynamo = options.dynamo ?? (options.documentClient ? documentsFromClient(options.documentClient) : undefined);
  // Servers each user connects to with their own account wrap the gateway (none: undefined).
  const connections = options.gateway ? undefined : configuredConnections(config, serviceGateway, {
    logger,
    environment: process.env,
    ...(dynamo ? { dynamo } : {}),
    ...(options.connectionStore ? { store: options.connectionStore } : {}),
    ...(options.connectionSealer ? { sealer: options.connectionSealer } : {}),
  });
  const gateway = connections?.gateway ?? serviceGateway;
  // Loaded now, so that a policy file that does not parse or validate stops the start.
  const callPolicy = options.callPolicy ?? configuredCallPolicy(config);
  const untracedStore = options.store ?? createDynamoConversationStore({
    client: dynamo!,
    tableName: config.conversation.tableName,
    ttlDays: config.conversation.ttlDays,
  });
  const { telemetry } = options;
  const store = telemetry ? telemetry.store(untracedStore, { system: options.store ? 'custom' : 'aws.dynamodb', collection: config.conversation.tableName }) : untracedStore;
  const ownerCounters = options.ownerCounters ?? (dynamo ? createDynamoOwnerCounters({ client: dynamo, tableName: config.conversation.tableName }) : createMemoryOwnerCounters());
  const notes = options.notes ?? (dynamo ? createDynamoNoteStore({ client: dynamo, tableName: config.conversation.tableName }) : undefined);
  const files = options.files ?? (config.files.enabled ? configuredFileStore(process.env) : undefined);
  // No worker starts before the first code_interpreter call.
  const codeSandbox = options.codeSandbox ?? (config.codeInterpreter.enabled ? createPythonSandbox({ packages: config.codeInterpreter.packages }) : undefined);
  const agent = createAgent(config, {
    model,
    ...(modelNotConfigured ? { modelNotConfigured } : {}),
    gateway,
    store,
    ...(notes ? { notes } : {}),
    ...(files ? { files } : {}),
    ...(codeSandbox ? { codeSandbox } : {}),
    ...(options.codeFiles ? { codeFiles: options.codeFiles } : {}),
    logger,
    ownerCounters,
    ...(callPolicy ? { callPolicy } : {}),
    // Telemetry's extension last of these, so its spans time the calls alone (lib/extensions/telemetry/extension.ts).
    extensions: [...(connections ? [connections.extension] : []), ...mcpClientExtensions(config, { gateway, ...(router ? { router } : {}) }), ...(options.extensions ?? []), ...(telemetry ? [telemetry.extension] : [])],
    ...(connections ? { connections: connections.api } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.hmacKey ? { hmacKey: options.hmacKey } : {}),
    ...(options.strategy ? { strategy: options.strategy } : {}),
  });
  return telemetry ? telemetry.agent(agent) : agent;
}
