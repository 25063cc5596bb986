import { withDeadline } from '../../core/deadline.ts';
import { AgentError, BudgetExhaustedError, errorMessage, InternalError, ModelError, StoreError, TurnNotStoredError, TurnTakenError } from '../../core/errors.ts';
import { addUsage as sumUsage, exhaustionText } from '../../core/budget.ts';
import { closeOpenRound, historyViolations } from '../../core/history.ts';
import type { Logger } from '../../core/logger.ts';
import type { HistoryMessage, TokenUsage } from '../../core/messages.ts';
import type { ConversationStore } from '../../core/ports/conversation-store.ts';
import type { ExtensionRunner } from '../extension-api/extension-runner.ts';
import type { KeptClaim } from './lease.ts';
import type { EarlierTurns } from '../extension-api/extension.ts';
import type { AnsweredStopReason, PendingApproval, PendingElicitation, StopReason, TurnError, TurnResult } from '../../core/turn.ts';
import type { LoopEvent } from '../loop/loop-events.ts';
import { keepFormatWhilePaused } from './carried-format.ts';
import { fallbackReply } from './fallback-reply.ts';
import { heldTurnWrites, soonerDeadline, turnDeadlineOf, untilStored, type Deadline, type HeldTurn } from './held-turn.ts';
import type { AnswerCheck } from '../loop/answer-check.ts';
import { checkedOutcome } from '../loop/checked-outcome.ts';
import { pausedFor, type LoopLimits, type LoopOutcome } from '../loop/run-loop.ts';
import type { ToolRunContext } from '../loop/run-tools.ts';
import type { TurnStrategy } from '../loop/turn-strategy.ts';
import { toolText } from '../loop/tool-messages.ts';
import type { PlannedCall } from '../loop/tool-plan.ts';
import { answerCalls } from '../loop/tool-round.ts';
import { questionOf, type TurnDraft } from './turn-draft.ts';

export interface DriveInput {
  held: HeldTurn;
  history: HistoryMessage[];
  /** The conversation's earlier turns, for extensions that choose the history themselves (a summary). */
  earlier: EarlierTurns;
  draft: TurnDraft;
  /** The turn's extensions, composed: its tools, hooks and the conversation's state. */
  runner: ExtensionRunner;
  /** A resumed turn: the decided calls of its open round, answered before the loop goes on. */
  decided?: PlannedCall[];
  /** The caller's instructions for this turn, after the configured system prompt. */
  instructions?: string;
  /** The caller asked for a structured answer (responseFormat): its check. */
  answerCheck?: AnswerCheck;
  deadlineAt: number;
  /** The claim's lease, kept alive while the turn runs: its round records carry it on. */
  lease?: Pick<KeptClaim, 'end' | 'written'>;
  onEvent?: (event: LoopEvent) => void;
}

/** Where the turn strategy keeps its state in the conversation (plan-execute: the plan). */
const STRATEGY_STATE = 'strategy';

export interface DriveServices {
  /** react (the plain loop) or plan-execute. */
  strategy: TurnStrategy;
  /** The conversation's tokens so far (this turn's included), reported with the turn's own. */
  conversationUsage?: () => TokenUsage;
  store: ConversationStore;
  logger: Logger;
  systemPrompt: string;
  limits: LoopLimits;
  approvalTtlMs: number;
  /** How long a turn that has run nothing yet waits for an unavailable store (conversation.unavailableWaitSeconds). */
  storeWaitMs: number;
  now: () => number;
}

/**
 * Runs a held turn to its end and stores it:
 *
 *   completed, max_rounds, deadline   -> complete the turn
 *   calls need approval, or a call's server asked the user a question
 *                                     -> pause the turn (stored with its pending calls)
 *   failed (model or record), nothing ran in a fresh turn
 *                                     -> release the claim, throw the failure (nothing to keep)
 *   failed after tools ran, or in a resumed turn
 *                                     -> complete the turn with stopReason `error`
 *   a budget spent before a model call -> complete the turn with `budget_exhausted`; when nothing
 *                                        at all happened yet (no reply, no call): release, 429
 *
 * A final write is retried until the deadline; if it still fails after tools ran, the caller gets
 * turn_not_stored (the record lets the next request complete the turn as interrupted). While no
 * tool has run in a fresh turn, the store is waited for only conversation.unavailableWaitSeconds:
 * the caller gets store_unavailable within seconds, and may simply retry.
 */
export async function driveTurn(input: DriveInput, services: DriveServices): Promise<TurnResult> {
  // The turn's writes share one timer (turnDeadlineOf), ended with them however the turn ends.
  const turnDeadline = turnDeadlineOf(input.deadlineAt, services.now);
  try {
    return await driveHeldTurn(input, services, turnDeadline);
  } finally {
    turnDeadline.end();
  }
}

async function driveHeldTurn(input: DriveInput, services: DriveServices, turnDeadline: Deadline): Promise<TurnResult> {
  const { held, draft, runner } = input;
  const writes = heldTurnWrites(services.store, held, turnDeadline, () => runner.state(), input.lease);
  // Until a tool has run in a fresh turn, nothing need be remembered and the caller can simply
  // retry: an unavailable store is waited for briefly, not for the turn's whole time.
  const storeDeadline = (): Deadline =>
    input.decided === undefined && draft.ran.length === 0 ? soonerDeadline(turnDeadline, services.now() + services.storeWaitMs, services.now) : turnDeadline;
  // The round record is retried as the claim and the final write are: a record lost to a moment of
  // unavailability would end the turn with `error` right after its tool ran, the store healthy again.
  const journal = {
    record: (recorded: TurnDraft) => {
      const within = storeDeadline();
      return untilStored(() => writes.record(recorded, within), { until: within.at, now: services.now });
    },
  };
  const release = () => writes.release(storeDeadline());
  let outcome: LoopOutcome | undefined;
  let history = input.history;
  try {
    await runner.turnStart();
    const prepared = await runner.prepareTurn({
      systemPrompt: input.instructions ? `${services.systemPrompt}\n\n${input.instructions}` : services.systemPrompt,
      history,
      question: questionOf(draft),
      earlier: input.earlier,
    });
    history = prepared.history;
    addUsage(draft, runner.takeUsage());
    if (input.decided) {
      const decided = input.decided;
      const answered = await withDeadline(timeLeftOf(input, services), (signal) =>
        answerCalls(decided, {
          draft,
          round: draft.rounds,
          toolRun: toolRunOf(input, services, signal),
          journal,
          ...(input.onEvent ? { onEvent: input.onEvent } : {}),
        }),
      );
      if (answered.kind === 'not-recorded') outcome = { kind: 'failed', cause: answered.cause };
      // A call run again with an answer may ask its next question.
      if (answered.kind === 'waiting') outcome = pausedFor(answered, draft.rounds, input.onEvent);
    }
    outcome ??= await services.strategy.run({
      // Through the extensions' aroundModelCall: every phase's calls, as they are sent.
      model: runner.model,
      tools: runner.tools,
      hooks: runner,
      systemPrompt: prepared.systemPrompt,
      history,
      draft,
      limits: services.limits,
      deadlineAt: input.deadlineAt,
      journal,
      now: services.now,
      ...(input.onEvent ? { onEvent: input.onEvent } : {}),
      ...(input.answerCheck ? { answerCheck: input.answerCheck } : {}),
    }, { runner, state: runner.stateOf(STRATEGY_STATE), resumed: input.decided !== undefined });
  } catch (error) {
    // An extension that throws is a bug, but a turn whose tools ran must still be stored.
    outcome = { kind: 'failed', cause: error };
  }

  outcome = checkedOutcome(outcome, input.answerCheck);
  const resumed = input.decided !== undefined;
  // A budget stop keeps the model's replies it paid for, unless there were none.
  const keptBudgetStop = outcome.kind === 'failed' && outcome.cause instanceof BudgetExhaustedError && draft.rounds > 0;
  if (outcome.kind === 'failed' && !resumed && draft.ran.length === 0 && !keptBudgetStop) {
    // Nothing ran, so nothing happened that the conversation must remember: the caller can retry.
    await releaseQuietly(release, held, services.logger);
    throw outcome.cause;
  }
  addUsage(draft, runner.takeUsage());
  const core = resultOf(held, draft, outcome, services.limits.maxRounds, services.conversationUsage?.());
  // The extensions' fields (a todo list, a plan) come with the result, never over its own.
  const result: TurnResult = { ...(await runner.turnEnd(core)), ...core };
  keepFormatWhilePaused(runner, input.answerCheck, outcome.kind === 'paused');
  const messages = outcome.kind === 'failed' ? closeOpenRound(draft.messages, () => toolText.turnFailed()) : draft.messages;
  assertValidHistory(history, messages, outcome.kind === 'paused');

  const within = storeDeadline();
  const retry = { until: within.at, now: services.now };
  try {
    if (outcome.kind === 'paused') {
      await untilStored(() => writes.pause(messages, result, services.now() + services.approvalTtlMs, within), retry);
    } else {
      await untilStored(() => writes.complete(messages, result, new Date(services.now()).toISOString(), within), retry);
    }
  } catch (error) {
    throw await notStored(error, input, release, services.logger);
  }
  return result;
}


/** Model calls the extensions made themselves (a summary) count in the turn's usage. */
function addUsage(draft: TurnDraft, usage: TokenUsage): void {
  draft.usage = sumUsage(draft.usage, usage);
}

const timeLeftOf = (input: DriveInput, services: DriveServices): number => Math.max(1, input.deadlineAt - services.limits.reserveMs - services.now());

/** How decided calls run: as the loop runs a round's calls, `signal` ending them with the turn's time. */
function toolRunOf(input: DriveInput, services: DriveServices, signal: AbortSignal): ToolRunContext {
  return {
    runTool: input.runner.runTool,
    timeoutMs: Math.min(services.limits.toolTimeoutMs, timeLeftOf(input, services)),
    maxTimeoutMs: Math.min(services.limits.maxToolCallMs ?? services.limits.toolTimeoutMs, timeLeftOf(input, services)),
    maxOutputChars: services.limits.maxOutputChars,
    maxTurnOutputChars: services.limits.maxTurnOutputChars,
    maxConcurrentCalls: services.limits.maxConcurrentCalls,
    signal,
    now: services.now,
  };
}

function resultOf(held: HeldTurn, draft: TurnDraft, outcome: LoopOutcome, maxRounds: number, conversationUsage: TokenUsage | undefined): TurnResult {
  const usage = conversationUsage ? { ...draft.usage, conversation: conversationUsage } : draft.usage;
  const base = { conversationId: held.key.conversationId, turn: held.turn, rounds: draft.rounds, toolCalls: draft.toolCalls, usage };
  const stopped = (stopReason: Exclude<StopReason, AnsweredStopReason>, extra: { error?: TurnError; pendingApprovals?: PendingApproval[]; pendingElicitations?: PendingElicitation[] } = {}): TurnResult => ({
    ...base,
    reply: fallbackReply(stopReason, draft.messages, { maxRounds, rounds: draft.rounds, ...extra }),
    stopReason,
    ...extra,
  });
  switch (outcome.kind) {
    case 'completed':
      // A reply cut at the model's output limit, or withheld by a filter, says so in its stop reason.
      return { ...base, reply: outcome.reply, stopReason: outcome.stop ?? 'completed', ...('output' in outcome ? { output: outcome.output } : {}) };
    case 'stopped':
      if (outcome.reason === 'invalid_output') return stopped('invalid_output', { error: { code: 'output_invalid', message: `The answer does not validate: ${outcome.problems}.`, timeout: false } });
      return stopped(outcome.reason);
    case 'paused':
      if (outcome.elicitations?.length) {
        return stopped('input_required', { pendingElicitations: outcome.elicitations, ...(outcome.pending.length > 0 ? { pendingApprovals: outcome.pending } : {}) });
      }
      return stopped('approval_required', { pendingApprovals: outcome.pending });
    case 'failed':
      if (outcome.cause instanceof BudgetExhaustedError) {
        const { exhaustion } = outcome.cause;
        const reply = fallbackReply('budget_exhausted', draft.messages, { maxRounds, error: { code: 'budget_exhausted', message: exhaustionText(exhaustion), timeout: false } });
        return { ...base, reply, stopReason: 'budget_exhausted', budget: exhaustion };
      }
      return stopped('error', { error: turnError(outcome.cause) });
  }
}

function turnError(error: unknown): TurnError {
  if (error instanceof ModelError) return { code: error.code, message: error.message, timeout: error.timeout };
  if (error instanceof AgentError) return { code: error.code, message: error.message, timeout: false };
  return { code: 'internal_error', message: errorMessage(error), timeout: false };
}

/** Never store, or send, a history that breaks the invariant: a bug, not a condition to live with. */
function assertValidHistory(history: HistoryMessage[], messages: HistoryMessage[], paused: boolean): void {
  const checked = paused ? closeOpenRound(messages, () => '') : messages;
  const violations = historyViolations([...history, ...checked]);
  if (violations.length > 0) throw new InternalError(`refusing to store a turn that breaks the history invariant: ${violations.join('; ')}`);
}

/**
 * The turn could not be stored. When nothing ran in this request, there is nothing to remember:
 * give the claim back and say the store is unavailable. Otherwise say exactly what happened.
 */
async function notStored(error: unknown, input: DriveInput, release: () => Promise<void>, logger: Logger): Promise<unknown> {
  const ran = input.draft.ran;
  if (ran.length === 0 && input.decided === undefined) {
    await releaseQuietly(release, input.held, logger);
    return error instanceof TurnTakenError ? new StoreError('store_unavailable', error.message, { cause: error }) : error;
  }
  const calls = ran.map((call) => `${call.name} (${call.id})`).join(', ');
  const why = error instanceof TurnTakenError ? 'another request completed it first, after its claim ran out' : errorMessage(error).replace(/[.。]+$/, '');
  return new TurnNotStoredError(
    `Tools ran in turn ${input.held.turn} (${calls || 'none in this request'}), but the turn could not be stored: ${why}. The conversation will show turn ${input.held.turn} as interrupted, with calls whose results were not recorded marked as of unknown outcome; check their effect before asking again.`,
    ran.map((call) => call.name),
    { cause: error },
  );
}

/** A failure to give a claim back is logged: the claim's lease ends on its own anyway. */
async function releaseQuietly(release: () => Promise<void>, held: HeldTurn, logger: Logger): Promise<void> {
  try {
    await release();
  } catch (error) {
    logger.error('could not release a turn claim; it is free again when its lease ends', { conversationId: held.key.conversationId, turn: held.turn, error: errorMessage(error) });
  }
}
