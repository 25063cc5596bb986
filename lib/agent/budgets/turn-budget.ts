import { randomUUID } from 'node:crypto';
import { addUsage, totalTokens, utcDay } from '../../core/budget.ts';
import { BudgetExhaustedError, errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { TokenUsage } from '../../core/messages.ts';
import type { ModelClient } from '../../core/ports/model.ts';
import type { OwnerCounters } from '../../core/ports/owner-counters.ts';
import { spentBudget, type TokenLimits } from './spent.ts';

interface TurnBudgetInput {
  limits: TokenLimits;
  /** The owner's daily count, when a daily limit is set: its counters, and its tokens on `day` as read before the turn. */
  daily?: { counters: OwnerCounters; owner: string | undefined; day: number; tokens: number };
  /** The turn's tokens before this request (a paused turn's, when it resumes). */
  turnUsage: TokenUsage;
  /** The conversation's tokens before this request, this turn's so far included. */
  conversationUsage: TokenUsage;
  /** Told the conversation's new total after every call, to store it with the turn. */
  onConversationUsage: (usage: TokenUsage) => void;
  logger: Logger;
  now: () => number;
}

export interface TurnBudget {
  /**
   * The turn's model: every call is checked against the budgets first (a spent one throws
   * BudgetExhaustedError, and the model is not called) and counted after. Every model call of the
   * turn goes through it: each strategy's (the loop, the planner, executors, summary) and each
   * extension's own (TurnContext.model).
   */
  model(inner: ModelClient): ModelClient;
  conversationUsage(): TokenUsage;
  /** Waits for the owner's last count to be written (it runs while tools do); never throws. */
  settled(): Promise<void>;
}

export function createTurnBudget(input: TurnBudgetInput): TurnBudget {
  const { limits, daily, logger, now } = input;
  let turn = totalTokens(input.turnUsage);
  let conversation = input.conversationUsage;
  let ownerDay = daily?.day ?? utcDay(now());
  let ownerToday = daily?.tokens ?? 0;
  let counting: Promise<void> = Promise.resolve();

  /** One write per model call; the next call's check waits for it, the reply does not. */
  function count(tokens: number): void {
    if (!daily || tokens === 0) return;
    const day = utcDay(now());
    const write = daily.counters.addTokens(daily.owner, day, tokens, randomUUID()).then(
      (total) => {
        // Another turn of the owner may have counted meanwhile: the highest total of the day is the truest.
        if (day > ownerDay) [ownerDay, ownerToday] = [day, total];
        else if (day === ownerDay) ownerToday = Math.max(ownerToday, total);
      },
      (error: unknown) => {
        // The model call happened whatever the table says; the turn goes on, counted from what it knows.
        logger.warn('could not count tokens against the owner\'s daily budget', { tokens, error: errorMessage(error) });
        if (day === ownerDay) ownerToday += tokens;
      },
    );
    counting = counting.then(() => write);
  }

  function check(): void {
    const today = utcDay(now());
    // A new UTC day starts the owner's count from zero.
    const spent = spentBudget(limits, { turn, conversation: totalTokens(conversation), ownerToday: today > ownerDay ? 0 : ownerToday, day: today });
    if (spent) throw new BudgetExhaustedError(spent, now());
  }

  return {
    model: (inner) => ({
      async complete(request) {
        await counting;
        check();
        const reply = await inner.complete(request);
        const tokens = totalTokens(reply.usage);
        turn += tokens;
        conversation = addUsage(conversation, reply.usage);
        input.onConversationUsage(conversation);
        count(tokens);
        return reply;
      },
    }),
    conversationUsage: () => conversation,
    settled: () => counting,
  };
}
