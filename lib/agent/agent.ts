import { randomUUID } from 'node:crypto';
import { AgentError, ModelNotConfiguredError, NotFoundError } from '../core/errors.ts';
import { withLogContext } from '../core/log-context.ts';
import type { HistoryMessage } from '../core/messages.ts';
import type { Logger } from '../core/logger.ts';
import type { ConversationKey, ConversationStore, ModelClient, ToolGateway, ToolServerStatus, TurnMetrics } from '../core/ports.ts';
import type { TurnResult } from '../core/turn.ts';
import { ms } from '../core/time.ts';
import type { AgentConfig } from '../config/load.ts';
import type { LoopEvent } from './events.ts';
import { executeClaimedTurn, releaseClaim } from './execute-turn.ts';
import { newConversationId } from './new-conversation.ts';
import { checkConversationId, checkMessage, checkRequestId } from './validate-input.ts';

export interface AskInput {
  /** Omit to start a new conversation. */
  conversationId?: string;
  message: string;
  /** Makes the call idempotent: a retry with the same id gets the stored turn. */
  requestId?: string;
  /** Scopes the conversation to its owner when authentication is on. */
  owner?: string;
  /** Epoch ms by which the turn must be stored; defaults to now + turn.timeoutSeconds. */
  deadlineAt?: number;
  onEvent?: (event: LoopEvent) => void;
}

export interface ConversationView {
  conversationId: string;
  turns: Array<{ turn: number; requestId: string; createdAt: string; completedAt: string; stopReason: string; messages: HistoryMessage[] }>;
}

export interface HealthReport {
  status: 'ok' | 'degraded';
  model: { configured: boolean; name: string; baseURL: string };
  tools: number;
  mcpServers: ToolServerStatus[];
}

export interface Agent {
  ask(input: AskInput): Promise<TurnResult>;
  getConversation(key: ConversationKey): Promise<ConversationView>;
  deleteConversation(key: ConversationKey): Promise<void>;
  health(): Promise<HealthReport>;
  close(): Promise<void>;
}

export interface AgentDependencies {
  /** Absent when no model endpoint is configured: questions then fail with 503. */
  model: ModelClient | undefined;
  gateway: ToolGateway;
  store: ConversationStore;
  logger: Logger;
  metrics?: TurnMetrics;
  now?: () => number;
}

/** The agent behind every entry point: HTTP, streaming, queue, and embedding code. */
export function createAgent(config: AgentConfig, dependencies: AgentDependencies): Agent {
  const { gateway, store, logger } = dependencies;
  const now = dependencies.now ?? Date.now;

  async function ask(input: AskInput): Promise<TurnResult> {
    checkMessage(input.message, config.http.maxMessageChars);
    if (input.conversationId !== undefined) checkConversationId(input.conversationId);
    checkRequestId(input.requestId);
    const model = dependencies.model;
    if (!model) throw new ModelNotConfiguredError();

    const key: ConversationKey = { conversationId: input.conversationId ?? newConversationId(input.requestId, input.owner), ...(input.owner ? { owner: input.owner } : {}) };
    const requestId = input.requestId ?? randomUUID();
    const deadlineAt = input.deadlineAt ?? now() + ms(config.turn.timeoutSeconds);
    // Every log line of the turn, from the model, MCP and store adapters too, carries its ids.
    return withLogContext({ conversationId: key.conversationId, requestId }, () => runTurn(input, model, key, requestId, deadlineAt));
  }

  async function runTurn(input: AskInput, model: ModelClient, key: ConversationKey, requestId: string, deadlineAt: number): Promise<TurnResult> {
    // Listing tools (slow only on a cold start) and claiming the turn run side by side.
    const [listed, begin] = await Promise.allSettled([
      gateway.listTools(),
      store.beginTurn({ key, requestId, leaseMs: Math.max(0, deadlineAt - now()) + ms(config.turn.leaseMarginSeconds), historyTokenBudget: config.history.maxTokens }),
    ]);
    if (begin.status === 'rejected') throw begin.reason;
    const begun = begin.value;
    if (listed.status === 'rejected') {
      if (begun.kind === 'claimed') await releaseClaim(begun.claim, store, logger);
      throw listed.reason;
    }
    const tools = listed.value;
    if (begun.kind === 'replay') {
      logger.info('turn replayed', { conversationId: key.conversationId, requestId, turn: begun.turn.turn });
      return begun.turn.result;
    }
    const { claim, history } = begun;
    const log = { conversationId: key.conversationId, requestId, turn: claim.turn };
    logger.info('turn started', { ...log, historyMessages: history.length, tools: tools.length });
    const started = now();
    try {
      const result = await executeClaimedTurn(
        { claim, history, tools, question: input.message, deadlineAt, ...(input.onEvent ? { onEvent: input.onEvent } : {}) },
        { config, model, gateway, store, logger, now },
      );
      logger.info('turn completed', { ...log, stopReason: result.stopReason, rounds: result.rounds, toolCalls: result.toolCalls.length, ...result.usage, durationMs: now() - started });
      dependencies.metrics?.turnCompleted(result, now() - started);
      return result;
    } catch (error) {
      const code = error instanceof AgentError ? error.code : 'internal_error';
      logger.warn('turn failed', { ...log, code, durationMs: now() - started });
      dependencies.metrics?.turnFailed(code, now() - started);
      throw error;
    }
  }

  async function getConversation(key: ConversationKey): Promise<ConversationView> {
    checkConversationId(key.conversationId);
    const turns = await store.getConversation(key);
    if (turns.length === 0) throw notFound(key);
    return {
      conversationId: key.conversationId,
      turns: turns.map((turn) => ({
        turn: turn.turn,
        requestId: turn.requestId,
        createdAt: turn.createdAt,
        completedAt: turn.completedAt,
        stopReason: turn.result.stopReason,
        messages: turn.messages,
      })),
    };
  }

  async function deleteConversation(key: ConversationKey): Promise<void> {
    checkConversationId(key.conversationId);
    if ((await store.deleteConversation(key)) === 0) throw notFound(key);
  }

  async function health(): Promise<HealthReport> {
    const servers = await gateway.status();
    return {
      status: servers.every((server) => server.status === 'connected') && dependencies.model ? 'ok' : 'degraded',
      model: { configured: Boolean(dependencies.model), name: config.model.name, baseURL: config.model.baseURL },
      tools: servers.reduce((sum, server) => sum + server.toolCount, 0),
      mcpServers: servers,
    };
  }

  return { ask, getConversation, deleteConversation, health, close: () => gateway.close() };
}

const notFound = (key: ConversationKey) =>
  new NotFoundError('conversation_not_found', `There is no conversation "${key.conversationId}". Start one with POST /conversations.`);

