/**
 * Budgets (agent.yml `limits`): what a spent budget looks like, and the day arithmetic of the
 * per-owner daily counter. Pure: the counters themselves sit behind the OwnerCounters port.
 */
import type { TokenUsage } from './messages.ts';

/** The token limits, each counting prompt + completion tokens as the model reports them. */
export type TokenLimit = 'tokensPerTurn' | 'tokensPerConversation' | 'tokensPerOwnerPerDay';

/** A token limit that ran out: which, its value, what was used, and when it resets (if time does that). */
export interface BudgetExhaustion {
  limit: TokenLimit;
  allowedTokens: number;
  usedTokens: number;
  /** ISO time at which the limit starts counting from zero again; absent when time does not reset it. */
  resetsAt?: string;
}

const DAY_MS = 86_400_000;

/** The UTC day of an instant, in whole days since 1970-01-01: the sort key of an owner's daily counter. */
export const utcDay = (epochMs: number): number => Math.floor(epochMs / DAY_MS);

/** When UTC day `day` begins, in ms epoch. */
export const dayStartMs = (day: number): number => day * DAY_MS;

export const totalTokens = (usage: TokenUsage): number => usage.promptTokens + usage.completionTokens;

/** Two usages added up; the prompt cache's shares only when either side reports them. */
export function addUsage(left: TokenUsage, right: TokenUsage): TokenUsage {
  const sum: TokenUsage = { promptTokens: left.promptTokens + right.promptTokens, completionTokens: left.completionTokens + right.completionTokens };
  for (const key of ['cacheReadTokens', 'cacheWriteTokens'] as const) {
    if (left[key] !== undefined || right[key] !== undefined) sum[key] = (left[key] ?? 0) + (right[key] ?? 0);
  }
  return sum;
}

/** What ran out, in words a caller (and the reply of a stopped turn) can act on. */
export function exhaustionText(exhaustion: BudgetExhaustion): string {
  const { allowedTokens, usedTokens } = exhaustion;
  switch (exhaustion.limit) {
    case 'tokensPerTurn':
      return `this turn used ${usedTokens} tokens of the ${allowedTokens} a turn may use (limits.tokensPerTurn); send a new message to go on`;
    case 'tokensPerConversation':
      return `this conversation used ${usedTokens} tokens of the ${allowedTokens} a conversation may use (limits.tokensPerConversation); it does not reset: start a new conversation`;
    case 'tokensPerOwnerPerDay':
      return `you used ${usedTokens} tokens today of the ${allowedTokens} you may use per day (limits.tokensPerOwnerPerDay); it resets at ${exhaustion.resetsAt} (midnight UTC)`;
  }
}
