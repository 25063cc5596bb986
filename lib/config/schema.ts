// A namespace import, as everywhere in this project: zod's named export `z` is an object that
// esbuild must keep whole, and with it every one of zod's locales (260 KB of each Lambda bundle).
import * as z from 'zod';
import { modelSchema } from './schema/model.ts';
import { builtInToolsSchema, toolPolicySchema, toolsSchema } from './schema/tools.ts';
import { mcpServersSchema, oauthSchema, stdioServerSchema } from './schema/mcp-servers.ts';
import { executorSchema, plannerSchema, planSummarySchema, reflectionSchema, strategySchema } from './schema/strategies.ts';
import { codeInterpreterSchema, deepSearchSchema, filesSchema, historySchema, memorySchema, reportsSchema, todoListSchema } from './schema/extensions.ts';
import { a2aSchema, httpSchema, mcpServerDoorSchema, openaiApiSchema, uiStreamsSchema } from './schema/front-doors.ts';
import { approvalsSchema, conversationSchema, limitsSchema, loggingSchema, telemetrySchema, traceSchema, turnSchema } from './schema/service.ts';
import { numeric } from './schema/shared.ts';

// The keys are written in lib/config/schema/, one file per concern (shared.ts: the helpers they
// share); this file puts them together in the order the parsed configuration keeps, and re-exports
// what the rest of the product imports from here.
export { DEFAULT_HISTORY_SUMMARY_PROMPT } from './schema/extensions.ts';
export { DEFAULT_MODEL_NAMES, DEMO_MODEL_NAME, MODEL_PROVIDERS, type ModelProviderName } from './schema/model.ts';
export { JWT_SIGNING_ALGORITHMS, oauthSchema, remoteServerSchema, stdioServerSchema } from './schema/mcp-servers.ts';

/** The fixed system prompt of the original request. */
export const DEFAULT_SYSTEM_PROMPT =
  '你是一个智能助手，需要得到用户想要的最终回复时才停止调用function，否则你需要持续响应function_call JSON与function API交互。';

/**
 * The shape of agent.yml, and the one place its defaults live (with lib/config/schema/): the typed
 * configuration is derived from this schema (lib/config/load.ts), never written twice. Every object
 * is strict: an unknown key is an error, not a silent no-op, because a misspelt `maxRound` that is
 * ignored is worse than a service that does not start. Adding a setting means: its key in the
 * fitting file of lib/config/schema/ (a new top-level key also listed below), its consumer, its row
 * in docs/configuration.md.
 */
export const fileSchema = z.strictObject({
  systemPrompt: z.string().min(1).default(DEFAULT_SYSTEM_PROMPT),
  /** Each model reply is one round; a turn stops after this many. */
  maxRounds: numeric(z.number().int().positive().max(100)).default(8),
  todoList: todoListSchema,
  strategy: strategySchema,
  /** Self-Refine, Reflexion and self-consistency (docs/reflection.md): react and reflexion only. */
  reflection: reflectionSchema.prefault({}),
  planner: plannerSchema,
  executor: executorSchema,
  summary: planSummarySchema,
  model: modelSchema.prefault({}),
  tools: toolsSchema.prefault({}),
  builtInTools: builtInToolsSchema,
  toolPolicy: toolPolicySchema,
  approvals: approvalsSchema,
  history: historySchema,
  memory: memorySchema,
  files: filesSchema,
  reports: reportsSchema,
  codeInterpreter: codeInterpreterSchema,
  deepSearch: deepSearchSchema,
  conversation: conversationSchema,
  turn: turnSchema,
  limits: limitsSchema,
  http: httpSchema,
  openaiApi: openaiApiSchema,
  uiStreams: uiStreamsSchema,
  mcpServerDoor: mcpServerDoorSchema,
  a2a: a2aSchema,
  trace: traceSchema,
  logging: loggingSchema,
  telemetry: telemetrySchema,
  mcpServers: mcpServersSchema,
});

/** Keys of earlier versions, and what to write instead: named in the error, not just "unknown". */
export const RENAMED_KEYS: Readonly<Record<string, string>> = {
  'tools.retryFailedAfterSeconds':
    'a failed MCP server is now reconnected in the background with backoff; tools.reconnectMaxDelaySeconds (default 30) is the longest wait between attempts',
};

export type AgentFile = z.output<typeof fileSchema>;
export type OAuthSettings = z.output<typeof oauthSchema>;
export type ToolPolicy = Pick<z.output<typeof stdioServerSchema>, 'allowTools' | 'denyTools' | 'requireApproval'>;
export type BuiltInApprovalSetting = AgentFile['builtInTools']['requireApproval'];
