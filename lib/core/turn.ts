import type { TokenUsage } from './messages.ts';

/**
 * Why a turn ended:
 * - `completed`: the model answered with text and no tool calls;
 * - `max_rounds`: the round limit was reached while the model still asked for tools;
 * - `deadline`: the time left for the turn ran out;
 * - `error`: the model failed after tools had already run (their results are kept).
 */
export type StopReason = 'completed' | 'max_rounds' | 'deadline' | 'error';

export interface ToolCallRecord {
  id: string;
  name: string;
  /** Parsed arguments, or the raw text when the model's arguments were not JSON. */
  arguments: unknown;
  ok: boolean;
  durationMs: number;
}

export interface TurnError {
  code: string;
  message: string;
  /** The model did not answer in time (maps to 504 rather than 502). */
  timeout: boolean;
}

export interface TurnResult {
  conversationId: string;
  turn: number;
  reply: string;
  stopReason: StopReason;
  rounds: number;
  toolCalls: ToolCallRecord[];
  usage: TokenUsage;
  error?: TurnError;
}
