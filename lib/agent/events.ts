import type { ToolCall } from '../core/messages.ts';
import type { ToolCallRecord } from '../core/turn.ts';

/** Progress of a running turn, for streaming clients (noun-verb names). */
export type LoopEvent =
  | { type: 'round-start'; round: number }
  | { type: 'tool-call'; round: number; call: ToolCall }
  | { type: 'tool-result'; round: number; result: ToolCallRecord };
