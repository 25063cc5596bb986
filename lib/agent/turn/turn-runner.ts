import { AgentError } from '../../core/errors.ts';
import type { HistoryMessage, TokenUsage } from '../../core/messages.ts';
import type { ConversationState } from '../../core/ports/conversation-store.ts';
import type { ModelClient } from '../../core/ports/model.ts';
import type { TurnResult } from '../../core/turn.ts';
import type { AgentParts } from '../agent-parts.ts';
import type { AskInput, DecideInput } from '../agent-api.ts';
import { USAGE_STATE, type Admission } from '../budgets/admission.ts';
import { createExtensionRunner, type ExtensionRunner } from '../extension-api/extension-runner.ts';
import type { BuiltinTool } from '../extension-api/extension.ts';
import type { OfferedTool } from '../loop/tool-policy.ts';
import { turnCallPolicy } from '../loop/call-policy.ts';
import type { AgentSettings } from '../settings.ts';
import { driveTurn, type DriveInput } from './drive-turn.ts';
import type { EarlierTurns } from '../extension-api/extension.ts';
import type { HeldTurn } from './held-turn.ts';
import type { KeptClaim } from './lease.ts';
import type { RequestScope } from './request-scope.ts';
import type { TurnDraft } from './turn-draft.ts';

/** A turn this request holds, opened from the store: a new one, or a paused one taken up again. */
export interface OpenedTurn {
  held: HeldTurn;
  history: HistoryMessage[];
  earlier: EarlierTurns;
  draft: TurnDraft;
  state: ConversationState;
}

interface TurnRunnerInput {
  settings: AgentSettings;
  parts: AgentParts & { now: () => number };
  builtInNeedsApproval: (tool: BuiltinTool) => boolean;
}

/**
 * Runs an opened turn to its end: the claim renewed meanwhile, every model call through the
 * owner's budget, the turn's extensions around the strategy, and the log lines and metrics of a turn.
 */
export function turnRunner({ settings, parts, builtInNeedsApproval }: TurnRunnerInput) {
  const { store, logger, metrics, now } = parts;

  /** Renews a held turn's claim until `work` ends: stored, paused (a paused turn holds no lease), given back or failed. */
  async function keepingClaim<T>(scope: RequestScope, held: HeldTurn, work: (lease: KeptClaim) => Promise<T>): Promise<T> {
    const expected = { claimId: held.claimId, status: 'running' as const };
    const kept = scope.lease.keep({ what: 'turn claim', until: held.leaseExpiresAt, renew: (until, signal) => store.renewLease(held.key, held.turn, expected, until, { signal }) });
    try {
      return await work(kept);
    } finally {
      kept.release();
    }
  }

  /** One turn's extensions, with its tools and the conversation's state. */
  const runnerFor = (scope: RequestScope, turn: OpenedTurn, mcpTools: OfferedTool[], model: ModelClient, input: AskInput | DecideInput) =>
    createExtensionRunner({
      extensions: [...parts.extensions],
      mcpTools,
      gateway: parts.gateway,
      model,
      conversationId: scope.key.conversationId,
      ...(scope.key.owner ? { owner: scope.key.owner } : {}),
      turn: turn.held.turn,
      state: turn.state,
      history: turn.history,
      turnMessages: () => turn.draft.messages,
      deadlineAt: scope.deadlineAt,
      reserveMs: settings.reserveMs,
      now,
      ...(input.onEvent ? { onEvent: input.onEvent } : {}),
      takeRound: () => takeRound(turn.draft, settings.rules.maxRounds),
      builtInNeedsApproval,
      // The caller is the conversation's owner, with the claims its request carried.
      ...(parts.callPolicy ? { callPolicy: turnCallPolicy(parts.callPolicy, { ...(scope.key.owner ? { owner: scope.key.owner } : {}), claims: input.claims ?? {} }, logger) } : {}),
    });

  /** Runs a held turn, with the log lines and metrics of a turn. */
  async function drive(input: DriveInput, conversationUsage: () => TokenUsage, scope: RequestScope): Promise<TurnResult> {
    const log = { conversationId: scope.key.conversationId, requestId: scope.requestId, turn: input.held.turn };
    logger.info(input.decided ? 'turn resumed' : 'turn started', { ...log, historyMessages: input.history.length, tools: input.runner.tools.length });
    const started = now();
    try {
      const result = await driveTurn(input, {
        strategy: parts.strategy,
        conversationUsage,
        store,
        logger,
        systemPrompt: settings.systemPrompt,
        limits: settings.limits,
        approvalTtlMs: settings.approvalTtlMs,
        storeWaitMs: settings.storeWaitMs,
        now,
      });
      const paused = result.stopReason === 'approval_required' || result.stopReason === 'input_required';
      logger.info(paused ? 'turn paused' : 'turn completed', { ...log, stopReason: result.stopReason, rounds: result.rounds, toolCalls: result.toolCalls.length, ...result.usage, durationMs: now() - started });
      if (settings.logPayloads) logger.info('turn payloads', { ...log, reply: result.reply, calls: result.toolCalls, messages: input.draft.messages });
      metrics?.turnCompleted(result, now() - started);
      if (result.budget) metrics?.limitReached?.(result.budget.limit, 'stopped');
      return result;
    } catch (error) {
      const code = error instanceof AgentError ? error.code : 'internal_error';
      logger.warn('turn failed', { ...log, code, durationMs: now() - started });
      metrics?.turnFailed(code, now() - started);
      throw error;
    }
  }

  /** `extra` adds what only one kind of request gives the turn: a question's instructions, a decision's decided calls. */
  return (scope: RequestScope, admission: Admission, model: ModelClient, mcpTools: OfferedTool[], turn: OpenedTurn, input: AskInput | DecideInput, extra: (runner: ExtensionRunner) => Partial<DriveInput>): Promise<TurnResult> =>
    keepingClaim(scope, turn.held, (lease) => {
      // Every model call of the turn (the strategy's and the extensions') goes through its budget.
      const budgeted = admission.turnModel(model, { usage: turn.draft.usage, state: turn.state, usageState: () => runner.stateOf(USAGE_STATE) });
      const runner = runnerFor(scope, turn, mcpTools, budgeted.model, input);
      const driveInput: DriveInput = { held: turn.held, history: turn.history, earlier: turn.earlier, draft: turn.draft, runner, deadlineAt: scope.deadlineAt, lease, ...extra(runner), ...(input.onEvent ? { onEvent: input.onEvent } : {}) };
      input.onEvent?.({ type: 'turn-start', conversationId: scope.key.conversationId, turn: turn.held.turn, requestId: scope.requestId });
      return drive(driveInput, budgeted.conversationUsage, scope);
    });
}

/** A round for a model call an extension makes for the turn (MCP sampling), while maxRounds allows: they count in its rounds and usage, as the loop's own do. */
function takeRound(draft: TurnDraft, maxRounds: number): boolean {
  if (draft.rounds >= maxRounds) return false;
  draft.rounds += 1;
  return true;
}
