import type { JsonObject } from './json.ts';
import type { ProviderData, TokenUsage } from './messages.ts';
import type { ToolCallRecord } from './turn.ts';

/**
 * What a turn's trace shows of each model call: the request and the reply in the Chat Completions
 * shape (`tool_calls`, `tool_call_id`, tools as functions), which is what the OpenAI-compatible
 * adapter puts on the wire (lib/adapters/openai/wire.ts) and what a reader would send to reproduce
 * a call. The adapter's own repairs (an empty answer sent as "", arguments that are not a JSON
 * object wrapped) are not applied here: the trace shows the request as the loop made it. What is
 * not Chat Completions' own is shown neutrally: the reasoning's text as `reasoning`, and with
 * trace.contents `full` the provider data as it is kept (`provider_data`, each provider's own
 * entry: how each adapter sends it is the adapter's business).
 */

export interface TraceToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  provider_data?: ProviderData;
}

export type TraceMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: TraceToolCall[]; reasoning?: string; provider_data?: ProviderData }
  | { role: 'tool'; tool_call_id: string; name: string; content: string };

export interface TraceTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: JsonObject };
}

/** One model call of the turn, as the inspector shows it. */
export interface TraceRound {
  /** The turn's model calls in the order they started: each one is a round. */
  round: number;
  startedAt: string;
  durationMs: number;
  /** Until the first piece of text or reasoning arrived, when the reply was streamed. */
  firstDeltaMs?: number;
  /**
   * Absent when the trace had to leave it out to stay within trace.maxBytes. `historyUnavailable`:
   * the earlier turns' messages it was sent with (that many) are no longer stored, and are left out.
   */
  request?: { messages: TraceMessage[]; tools: TraceTool[]; historyUnavailable?: number };
  /** The reply as the model gave it (before the loop makes repeated call ids unique). */
  response?: TraceMessage;
  usage?: TokenUsage;
  /** The call failed: no response. */
  error?: { code: string; message: string };
}

/**
 * A tool call that ran (through the MCP server or a built-in tool), with its own timing; with a tool
 * policy (toolPolicy), also each call the policy refused (durationMs 0), with the decision.
 */
export interface TraceToolRun {
  id: string;
  name: string;
  ok: boolean;
  durationMs: number;
  policy?: ToolCallRecord['policy'];
}

/** GET /conversations/{id}/turns/{turn}/trace: each round's request and reply in full. */
export interface TurnTraceView {
  conversationId: string;
  turn: number;
  rounds: TraceRound[];
  toolCalls: TraceToolRun[];
  /** Characters cut from long texts to keep the trace within trace.maxBytes (each cut is marked). */
  trimmedCharacters?: number;
  /** Rounds whose request was left out to keep within trace.maxBytes, then rounds left out entirely. */
  omittedRequests?: number;
  omittedRounds?: number;
}
