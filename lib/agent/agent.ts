import { randomUUID } from 'node:crypto';
import { LEASE_MARGIN_MS } from '../core/defaults.ts';
import { AgentError, ModelError, ModelNotConfiguredError, NotFoundError } from '../core/errors.ts';
import { historyViolations } from '../core/history.ts';
import type { HistoryMessage } from '../core/messages.ts';
import type { Logger } from '../core/logger.ts';
import type { ConversationKey, ConversationStore, ModelClient, ToolGateway, ToolServerStatus, TurnClaim } from '../core/ports.ts';
import type { TurnResult } from '../core/turn.ts';
import type { AgentConfig } from '../config/load.ts';
import type { LoopEvent } from './events.ts';
import { runLoop, type LoopOutcome } from './run-loop.ts';
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
    if (!model) throw new ModelNotConfiguredError(MODEL_NOT_CONFIGURED);

    const key: ConversationKey = { conversationId: input.conversationId ?? randomUUID(), ...(input.owner ? { owner: input.owner } : {}) };
    const requestId = input.requestId ?? randomUUID();
    const deadlineAt = input.deadlineAt ?? now() + config.turn.timeoutMs;
    // Listing tools (slow only on a cold start) and claiming the turn run side by side.
    const [listed, begin] = await Promise.allSettled([
      gateway.listTools(),
      store.beginTurn({ key, requestId, leaseMs: Math.max(0, deadlineAt - now()) + LEASE_MARGIN_MS, historyTokenBudget: config.history.maxTokens }),
    ]);
    if (begin.status === 'rejected') throw begin.reason;
    const begun = begin.value;
    if (listed.status === 'rejected') {
      if (begun.kind === 'claimed') await release(begun.claim);
      throw listed.reason;
    }
    const tools = listed.value;
    if (begun.kind === 'replay') {
      logger.info('turn replayed', { conversationId: key.conversationId, requestId, turn: begun.turn.turn });
      return begun.turn.result;
    }
    const { claim, history } = begun;
    const log = { conversationId: key.conversationId, requestId, turn: claim.turn };
    // Prompts, replies and tool payloads reach the log only when logging.logPayloads is on.
    const payloads = config.logging.logPayloads;
    logger.info('turn started', { ...log, historyMessages: history.length, tools: tools.length, ...(payloads ? { question: input.message } : {}) });

    let outcome: LoopOutcome;
    try {
      outcome = await runLoop({
        model, gateway, tools, history,
        systemPrompt: config.systemPrompt,
        question: input.message,
        maxRounds: config.maxRounds,
        deadlineAt,
        reserveMs: config.turn.reserveMs,
        modelTimeoutMs: config.model.timeoutMs,
        toolTimeoutMs: config.tools.callTimeoutMs,
        maxOutputChars: config.tools.maxOutputChars,
        now,
        ...(input.onEvent ? { onEvent: input.onEvent } : {}),
      });
    } catch (error) {
      await release(claim);
      throw error;
    }
    // A model that failed before any tool ran leaves nothing worth keeping: give the turn back so
    // the caller can simply retry, and report the failure.
    if (outcome.stopReason === 'error' && outcome.toolCalls.length === 0) {
      await release(claim);
      logger.warn('turn failed', { ...log, code: outcome.error?.code });
      throw outcome.cause instanceof AgentError ? outcome.cause : new ModelError('model_unavailable', outcome.error?.message ?? 'the model failed', { cause: outcome.cause });
    }
    const violations = historyViolations([...history, ...outcome.messages]);
    if (violations.length > 0) {
      await release(claim);
      throw new AgentError('internal_error', `refusing to store a turn that breaks the history invariant: ${violations.join('; ')}`);
    }
    const result: TurnResult = {
      conversationId: key.conversationId,
      turn: claim.turn,
      reply: outcome.reply,
      stopReason: outcome.stopReason,
      rounds: outcome.rounds,
      toolCalls: outcome.toolCalls,
      usage: outcome.usage,
      ...(outcome.error ? { error: outcome.error } : {}),
    };
    try {
      await store.completeTurn(claim, outcome.messages, result);
    } catch (error) {
      await release(claim);
      throw error;
    }
    logger.info('turn completed', {
      ...log, stopReason: result.stopReason, rounds: result.rounds, toolCalls: result.toolCalls.length, ...result.usage,
      ...(payloads ? { reply: result.reply, calls: result.toolCalls, toolResults: outcome.messages.filter((message) => message.role === 'tool') } : {}),
    });
    return result;
  }

  async function release(claim: TurnClaim): Promise<void> {
    try {
      await store.releaseTurn(claim);
    } catch (error) {
      // The claim's lease expires on its own; the conversation is blocked only until then.
      logger.error('could not release a turn claim', { conversationId: claim.key.conversationId, turn: claim.turn, error: String(error) });
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

export const MODEL_NOT_CONFIGURED =
  'No language model is configured. Set OPENAI_API_KEY for OpenAI (and optionally LLM_MODEL), or point OPENAI_BASE_URL at any OpenAI-compatible endpoint, e.g. OPENAI_BASE_URL=http://localhost:11434/v1 LLM_MODEL=qwen2.5 for Ollama or OPENAI_BASE_URL=http://localhost:8000/v1 for vLLM, then restart the service.';
