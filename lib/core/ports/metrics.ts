/** Operational metrics of turns. */
import type { TokenLimit } from '../budget.ts';
import type { TurnResult } from '../turn.ts';

/** Operational metrics of turns (rounds, tool calls and errors, tokens, latency). */
export interface TurnMetrics {
  turnCompleted(result: TurnResult, durationMs: number): void;
  turnFailed(code: string, durationMs: number): void;
  /**
   * A limit of agent.yml's `limits` was reached: a request `refused` (429) before any model call, or
   * a turn `stopped` with budget_exhausted.
   */
  limitReached?(limit: LimitName, outcome: 'refused' | 'stopped'): void;
}

/** The limits of agent.yml's `limits`, as metrics and error bodies name them. */
export type LimitName = TokenLimit | 'concurrentTurnsPerOwner';
