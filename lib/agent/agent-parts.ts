import type { Logger } from '../core/logger.ts';
import type { CallPolicy } from '../core/ports/call-policy.ts';
import type { ConversationKey, ConversationStore } from '../core/ports/conversation-store.ts';
import type { FileStore } from '../core/ports/file-store.ts';
import type { TurnMetrics } from '../core/ports/metrics.ts';
import type { ModelClient } from '../core/ports/model.ts';
import type { NoteStore } from '../core/ports/notes.ts';
import type { OwnerCounters } from '../core/ports/owner-counters.ts';
import type { ToolGateway } from '../core/ports/tools.ts';
import type { UserConnectionsApi } from '../core/ports/user-connections.ts';
import type { TurnTraceView } from '../core/turn-trace.ts';
import type { FilesApi } from './agent-api.ts';
import type { AgentExtension } from './extension-api/extension.ts';
import type { TurnStrategy } from './loop/turn-strategy.ts';

/** The parts an agent is assembled from, each chosen by the composition root (lib/create-agent.ts). */
export interface AgentParts {
  /** Absent when no model endpoint is configured: questions then fail with 503. */
  model: ModelClient | undefined;
  /** What the 503 says when there is no model: the configured provider's words (default: OpenAI's). */
  modelNotConfigured?: string;
  gateway: ToolGateway;
  store: ConversationStore;
  /** Where memory notes are kept; needed when agent.yml turns memory on. */
  notes?: NoteStore;
  /** Where the conversations' files are kept (files: true): deleted with their conversation. */
  files?: FileStore;
  /** The owner's files routes (lib/extensions/files), or ones that answer files_not_enabled. */
  filesApi: FilesApi;
  logger: Logger;
  metrics?: TurnMetrics;
  /** Every extension of a turn, in the order they run (lib/agent/extension-api/extension.ts). */
  extensions: readonly AgentExtension[];
  /** How each turn uses the loop (lib/agent/loop/turn-strategy.ts). */
  strategy: TurnStrategy;
  /** A turn's trace as its trace extension kept it (GET /conversations/{id}/turns/{turn}/trace). */
  readTurnTrace: (store: ConversationStore, key: ConversationKey, turn: number) => Promise<TurnTraceView>;
  /** The deployment's secret for derived conversation ids and page tokens; drawn at random without it. */
  hmacKey?: Uint8Array;
  /** The per-owner counters of the budgets (agent.yml `limits`). */
  ownerCounters: OwnerCounters;
  /** Who may call which tool with which arguments (agent.yml toolPolicy): decides every call; none: only allowTools, denyTools and requireApproval apply. */
  callPolicy?: CallPolicy;
  /** The owners' connections to per-user servers (GET/DELETE /connections); none when no server is per-user. */
  connections?: UserConnectionsApi;
  now?: () => number;
}
