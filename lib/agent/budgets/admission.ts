import { utcDay } from '../../core/budget.ts';
import { BudgetExhaustedError, errorMessage, LimitError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { TokenUsage } from '../../core/messages.ts';
import type { ConversationState } from '../../core/ports/conversation-store.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ModelClient } from '../../core/ports/model.ts';
import type { OwnerCounters, TurnSlot } from '../../core/ports/owner-counters.ts';
import type { TurnMetrics } from '../../core/ports/metrics.ts';
import type { KeptClaim, Lease } from '../turn/lease.ts';
import { spentBudget, type TokenLimits } from './spent.ts';
import { createTurnBudget, type TurnBudget } from './turn-budget.ts';

/** Where a conversation keeps its token totals, beside the extensions' state: stored with every turn. */
export const USAGE_STATE = 'usage';

interface BudgetLimits extends TokenLimits {
  /** Turns one owner may run at once; 0: no limit. */
  concurrentTurnsPerOwner: number;
}

interface BudgetsInput {
  limits: BudgetLimits;
  counters: OwnerCounters;
  logger: Logger;
  metrics?: TurnMetrics | undefined;
  now: () => number;
}

interface AdmitRequest {
  owner: string | undefined;
  /** The request's claim id: the turn slot is held under it. */
  holder: string;
  /** The request's lease (lib/agent/turn/lease.ts): the slot is renewed with it, and a dead holder's slot is free again when it ends, like the turn. */
  lease: Lease;
  /**
   * Refuse (429) when the owner's day is spent. A question is refused; decisions on a paused turn
   * are not (the approved calls run, and the turn stops before its next model call).
   */
  refuseWhenSpent: boolean;
}

/** An admitted request: what its turn checks and counts. */
export interface Admission {
  /** Refuses (429) a conversation whose budget is spent, before the turn is claimed. */
  checkConversation(state: ConversationState): void;
  /**
   * The turn's model (every call checked, then counted) and the conversation's running total.
   * `usageState` is the live state the totals are written to, stored with every write of the turn.
   */
  turnModel(model: ModelClient, turn: { usage: TokenUsage; state: ConversationState; usageState: () => JsonObject }): { model: ModelClient; conversationUsage: () => TokenUsage };
}

/** A hint for 429 too_many_turns: turns usually end within seconds (a dead one's slot frees itself with its lease). */
const TOO_MANY_TURNS_RETRY_SECONDS = 5;

/**
 * The budgets of agent.yml's `limits`, around every request that may call the model:
 *
 *   take a turn slot (concurrentTurnsPerOwner)  ┐ side by side: one round trip
 *   read the owner's tokens today               ┘ (each only when its limit is set)
 *     slot taken by others   -> 429 too_many_turns
 *     the day spent          -> 429 budget_exhausted (questions only)
 *   the turn: conversation checked before it is claimed, each model call checked and counted
 *   always: the slot given back (a paused turn holds none), the last count written
 */
export function createBudgets(input: BudgetsInput) {
  const { limits, counters, logger, now } = input;
  const dailyLimit = limits.tokensPerOwnerPerDay !== undefined;

  async function admitted<T>(request: AdmitRequest, work: (admission: Admission) => Promise<T>): Promise<T> {
    const { owner } = request;
    const slotted = owner !== undefined && limits.concurrentTurnsPerOwner > 0;
    const day = utcDay(now());
    let slot: TurnSlot | undefined;
    let keptSlot: KeptClaim | undefined;
    let budget: TurnBudget | undefined;
    try {
      const leaseExpiresAt = request.lease.end();
      const [taken, today] = await Promise.allSettled([
        slotted ? counters.acquireTurnSlot(owner, { slots: limits.concurrentTurnsPerOwner, holder: request.holder, leaseExpiresAt, now: now() }) : Promise.resolve(undefined),
        dailyLimit ? counters.tokensOn(owner, day) : Promise.resolve(0),
      ]);
      if (taken.status === 'rejected') throw taken.reason;
      slot = taken.value;
      if (slotted && slot === undefined) throw tooManyTurns(limits.concurrentTurnsPerOwner);
      const held = slot;
      keptSlot = held && request.lease.keep({ what: 'turn slot', until: leaseExpiresAt, renew: (until, signal) => counters.renewTurnSlot(held, until, { signal }) });
      if (today.status === 'rejected') throw today.reason;
      const ownerToday = today.value;
      const refuse = (usedConversation: number) => {
        const spent = spentBudget(limits, { turn: 0, conversation: usedConversation, ownerToday: request.refuseWhenSpent ? ownerToday : 0, day });
        if (spent) throw new BudgetExhaustedError(spent, now());
      };
      refuse(0);
      return await work({
        checkConversation: (state) => refuse(usageOf(state[USAGE_STATE])),
        turnModel(model, turn) {
          budget = createTurnBudget({
            limits,
            ...(dailyLimit ? { daily: { counters, owner, day, tokens: ownerToday } } : {}),
            turnUsage: turn.usage,
            conversationUsage: storedUsage(turn.state[USAGE_STATE]),
            onConversationUsage: (usage) => Object.assign(turn.usageState(), usage),
            logger,
            now,
          });
          return { model: budget.model(model), conversationUsage: budget.conversationUsage };
        },
      });
    } catch (error) {
      if (error instanceof LimitError) input.metrics?.limitReached?.(limitOf(error), 'refused');
      throw error;
    } finally {
      keptSlot?.release();
      await budget?.settled();
      if (slot) await release(slot);
    }
  }

  /** A slot that cannot be given back frees itself when its lease ends. */
  async function release(slot: TurnSlot): Promise<void> {
    try {
      await counters.releaseTurnSlot(slot);
    } catch (error) {
      logger.warn('could not give back a turn slot; it is free again when its lease ends', { slot: slot.index, error: errorMessage(error) });
    }
  }

  return { admitted };
}

function tooManyTurns(allowed: number): LimitError {
  return new LimitError(
    'too_many_turns',
    `You already have ${allowed} turn${allowed === 1 ? '' : 's'} running, as many as one caller may run at once (limits.concurrentTurnsPerOwner). Retry when one of them has finished.`,
    { details: { limit: 'concurrentTurnsPerOwner', allowedTurns: allowed }, retryAfterSeconds: TOO_MANY_TURNS_RETRY_SECONDS },
  );
}

const limitOf = (error: LimitError) => (error instanceof BudgetExhaustedError ? error.exhaustion.limit : 'concurrentTurnsPerOwner');

/** The totals a conversation's state keeps (absent before budgets, or before its first model call). */
function storedUsage(value: JsonObject | undefined): TokenUsage {
  const count = (field: unknown) => (typeof field === 'number' && Number.isFinite(field) && field > 0 ? field : 0);
  return { promptTokens: count(value?.promptTokens), completionTokens: count(value?.completionTokens) };
}

const usageOf = (value: JsonObject | undefined): number => {
  const usage = storedUsage(value);
  return usage.promptTokens + usage.completionTokens;
};
