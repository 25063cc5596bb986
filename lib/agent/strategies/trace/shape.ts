import type { Message, ProviderData, Reasoning, TokenUsage, ToolCall } from '../../../core/messages.ts';
import type { JsonObject, ModelReply, ToolDefinition } from '../../../core/ports.ts';

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

interface TraceToolCall {
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

/** A tool call that ran (through the MCP server or a built-in tool), with its own timing. */
export interface TraceToolRun {
  id: string;
  name: string;
  ok: boolean;
  durationMs: number;
}

/** Texts are replaced by their length when trace.contents is `none`. */
export type TraceContents = 'full' | 'none';

export function traceMessages(messages: readonly Message[], contents: TraceContents): TraceMessage[] {
  return messages.map((message): TraceMessage => {
    const text = (value: string) => kept(value, contents);
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: text(message.content) };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, name: message.name, content: text(message.content) };
      case 'assistant':
        return assistantMessage(message, contents);
    }
  });
}

export function traceReply(reply: ModelReply, contents: TraceContents): TraceMessage {
  return assistantMessage(reply, contents);
}

export function traceTools(tools: readonly ToolDefinition[], contents: TraceContents): TraceTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: contents === 'full' ? { name: tool.name, description: tool.description, parameters: tool.parameters } : { name: tool.name },
  }));
}

function assistantMessage(
  message: { content: string | null; toolCalls: readonly ToolCall[]; reasoning?: Reasoning; providerData?: ProviderData },
  contents: TraceContents,
): TraceMessage {
  const calls = message.toolCalls.map((call): TraceToolCall => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: kept(call.arguments, contents) },
    ...(call.providerData && contents === 'full' ? { provider_data: call.providerData } : {}),
  }));
  return {
    role: 'assistant',
    content: message.content === null ? null : kept(message.content, contents),
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(message.reasoning ? { reasoning: kept(message.reasoning.text, contents) } : {}),
    ...(message.providerData && contents === 'full' ? { provider_data: message.providerData } : {}),
  };
}

/** With `none`, a text becomes its length: enough to see what was sent, nothing of what it said. */
const kept = (text: string, contents: TraceContents): string => (contents === 'full' || text === '' ? text : `[${text.length} characters]`);
