/**
 * Embedding the agent in other Node code:
 *
 *   import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 *   import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 *   import { buildAgent, loadConfig } from './lib/index.ts';
 *   const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 *   const agent = buildAgent(loadConfig({ path: 'agent.yml' }), { documentClient });
 *   const turn = await agent.ask({ message: 'What is the weather in Shanghai?' });
 *   const next = await agent.ask({ conversationId: turn.conversationId, message: 'And tomorrow?' });
 *   await agent.close();
 *
 * The Lambda handlers and the local server are built on exactly this, with the lean DynamoDB
 * client in place of the document client: `{ dynamo: leanDynamoFromEnvironment(config.conversation) }`
 * (lib/lean-dynamo.ts, imported apart so that an agent with the in-memory store loads none of it).
 */
export { buildAgent, type BuildAgentOptions } from './build-agent.ts';
export { loadConfig, parseConfig, type AgentConfig, type LoadConfigOptions } from './config/load.ts';
export { createAgent, type AgentDependencies } from './create-agent.ts';
export { type Agent, type AskInput, type ConversationPageRequest, type ConversationView, type DecideInput, type HealthReport, type NotePage, type NotePageRequest } from './agent/agent-api.ts';
export { createMemoryConversationStore } from './adapters/memory/conversation-store.ts';
export { createMemoryOwnerCounters } from './adapters/memory/owner-counters.ts';
export { createMemoryNoteStore } from './adapters/memory/note-store.ts';
export { createDynamoNoteStore } from './adapters/dynamodb/note-store.ts';
export type { DynamoDocuments } from './adapters/dynamodb/documents.ts';
export type { LoopEvent } from './agent/loop/loop-events.ts';
export { runLoop, type LoopInput, type LoopLimits, type LoopOutcome } from './agent/loop/run-loop.ts';
export type { StrategyTurn, TurnStrategy } from './agent/loop/turn-strategy.ts';
export type { AgentExtension, BuiltinTool, EarlierTurn, EarlierTurns, ModelCallPlan, RunningCall, TurnContext, TurnPlan } from './agent/extension-api/extension.ts';
export type { ApprovalDecision } from './agent/turn/validate-input.ts';
export type { PendingApproval, PendingElicitation, StopReason, ToolCallRecord, TurnError, TurnResult, TurnUsage } from './core/turn.ts';
export type { BudgetExhaustion, TokenLimit } from './core/budget.ts';
export type { HistoryMessage, Message, ProviderData, ToolCall } from './core/messages.ts';
export type { ConversationKey, ConversationStore } from './core/ports/conversation-store.ts';
export type { ModelClient } from './core/ports/model.ts';
export type { Note, NoteStore } from './core/ports/notes.ts';
export type { OwnerCounters } from './core/ports/owner-counters.ts';
export type { ToolGateway } from './core/ports/tools.ts';
export { AgentError, BudgetExhaustedError, ConfigError, ConflictError, InputError, LimitError, ModelError, ModelNotConfiguredError, NotFoundError, StoreError, TurnNotStoredError } from './core/errors.ts';
