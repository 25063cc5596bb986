import { dayStartMs, type BudgetExhaustion } from '../../core/budget.ts';

/** agent.yml's token limits; an absent one does not limit. */
export interface TokenLimits {
  tokensPerTurn?: number | undefined;
  tokensPerConversation?: number | undefined;
  tokensPerOwnerPerDay?: number | undefined;
}

/** Tokens counted so far against each limit (prompt + completion, as the model reported them). */
interface TokensUsed {
  turn: number;
  conversation: number;
  /** The owner's tokens on UTC day `day`. */
  ownerToday: number;
  day: number;
}

/**
 * The first limit that is used up, or undefined when another model call is allowed. A limit is
 * spent once the tokens counted reach it: a call's size is known only after it, so a turn may end
 * above a limit by what its last call used, and the next call is refused.
 *
 * Checked in the order that tells the caller the most: a conversation's budget never comes back,
 * an owner's comes back tomorrow, a turn's with the next message.
 */
export function spentBudget(limits: TokenLimits, used: TokensUsed): BudgetExhaustion | undefined {
  if (limits.tokensPerConversation !== undefined && used.conversation >= limits.tokensPerConversation) {
    return { limit: 'tokensPerConversation', allowedTokens: limits.tokensPerConversation, usedTokens: used.conversation };
  }
  if (limits.tokensPerOwnerPerDay !== undefined && used.ownerToday >= limits.tokensPerOwnerPerDay) {
    return { limit: 'tokensPerOwnerPerDay', allowedTokens: limits.tokensPerOwnerPerDay, usedTokens: used.ownerToday, resetsAt: new Date(dayStartMs(used.day + 1)).toISOString() };
  }
  if (limits.tokensPerTurn !== undefined && used.turn >= limits.tokensPerTurn) {
    return { limit: 'tokensPerTurn', allowedTokens: limits.tokensPerTurn, usedTokens: used.turn };
  }
  return undefined;
}
