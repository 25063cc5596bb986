import { AgentError, InternalError, ModelError } from '../core/errors.ts';
import { historyViolations } from '../core/history.ts';
import type { Logger } from '../core/logger.ts';
import type { HistoryMessage } from '../core/messages.ts';
import type { ConversationStore, ModelClient, ToolDefinition, ToolGateway, TurnClaim } from '../core/ports.ts';
import type { TurnResult } from '../core/turn.ts';
import { ms } from '../core/time.ts';
import type { AgentConfig } from '../config/load.ts';
import type { LoopEvent } from './events.ts';
import { runLoop, type LoopOutcome } from './run-loop.ts';

export interface ClaimedTurn {
  claim: TurnClaim;
  history: HistoryMessage[];
  tools: ToolDefinition[];
  question: string;
  deadlineAt: number;
  onEvent?: (event: LoopEvent) => void;
}

export interface TurnServices {
  config: AgentConfig;
  model: ModelClient;
  gateway: ToolGateway;
  store: ConversationStore;
  logger: Logger;
  now: () => number;
}

/**
 * Runs the loop for a claimed turn and stores it whole, or gives the claim back:
 *
 *   loop threw, or the model failed before any tool ran  -> release the claim, throw
 *   the turn breaks the history invariant (never expected) -> release the claim, throw
 *   otherwise                                             -> complete the claim with the turn
 */
export async function executeClaimedTurn(turn: ClaimedTurn, services: TurnServices): Promise<TurnResult> {
  const { config, store, logger } = services;
  const { claim } = turn;
  const release = () => releaseClaim(claim, store, logger);
  let outcome: LoopOutcome;
  try {
    outcome = await runLoop({
      model: services.model,
      gateway: services.gateway,
      tools: turn.tools,
      history: turn.history,
      systemPrompt: config.systemPrompt,
      question: turn.question,
      maxRounds: config.maxRounds,
      deadlineAt: turn.deadlineAt,
      reserveMs: ms(config.turn.reserveSeconds),
      modelTimeoutMs: ms(config.model.timeoutSeconds),
      toolTimeoutMs: ms(config.tools.callTimeoutSeconds),
      maxOutputChars: config.tools.maxOutputChars,
      now: services.now,
      ...(turn.onEvent ? { onEvent: turn.onEvent } : {}),
    });
  } catch (error) {
    await release();
    throw error;
  }
  // A model that failed before any tool ran leaves nothing worth keeping: the caller can retry.
  if (outcome.stopReason === 'error' && outcome.toolCalls.length === 0) {
    await release();
    throw outcome.cause instanceof AgentError ? outcome.cause : new ModelError('model_unavailable', outcome.error?.message ?? 'the model failed', { cause: outcome.cause });
  }
  const violations = historyViolations([...turn.history, ...outcome.messages]);
  if (violations.length > 0) {
    await release();
    throw new InternalError(`refusing to store a turn that breaks the history invariant: ${violations.join('; ')}`);
  }
  const result: TurnResult = {
    conversationId: claim.key.conversationId,
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
    await release();
    throw error;
  }
  if (config.logging.logPayloads) {
    logger.info('turn payloads', { conversationId: claim.key.conversationId, requestId: claim.requestId, turn: claim.turn, question: turn.question, reply: result.reply, calls: result.toolCalls, toolResults: outcome.messages.filter((message) => message.role === 'tool') });
  }
  return result;
}

/** Gives a claim back; a failure here is logged, since the claim's lease expires on its own anyway. */
export async function releaseClaim(claim: TurnClaim, store: ConversationStore, logger: Logger): Promise<void> {
  try {
    await store.releaseTurn(claim);
  } catch (error) {
    // The claim's lease expires on its own; the conversation is blocked only until then.
    logger.error('could not release a turn claim', { conversationId: claim.key.conversationId, turn: claim.turn, error: String(error) });
  }
}
