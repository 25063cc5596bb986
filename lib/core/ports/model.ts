/** A model: one request, one normalized reply, deltas streamed as they come. */
import type { Message, ProviderData, Reasoning, TokenUsage, ToolCall } from '../messages.ts';
import type { ResponseFormat } from '../response-format.ts';
import type { ToolDefinition } from './tools.ts';

export interface ModelRequest {
  messages: Message[];
  tools: ToolDefinition[];
  signal?: AbortSignal;
  /** Upper bound for this call, retries included. */
  timeoutMs?: number;
  /** Tokens the reply may have, when the caller sets its own (an MCP server's sampling request). */
  maxTokens?: number;
  /**
   * Set when someone watches the turn as it runs: the model is asked to stream, and each piece of
   * text or reasoning is handed over as it arrives. The reply returned is the same as without it.
   */
  onDelta?: (delta: ModelDelta) => void;
  /**
   * The final answer must be JSON valid against this schema: an adapter whose provider has native
   * structured output sends it as such (OpenAI's `response_format`); one without asks for it in the
   * system prompt (responseFormatInstruction). The loop validates the answer either way.
   */
  responseFormat?: ResponseFormat;
}

/** A piece of a reply as the model writes it. */
export type ModelDelta = { kind: 'text'; text: string } | { kind: 'reasoning'; text: string };

/** A model reply, normalized: tool calls decided by their presence, ids unique, content or null. */
export interface ModelReply {
  content: string | null;
  toolCalls: ToolCall[];
  reasoning?: Reasoning;
  /** Kept on the assistant message for the adapter that wrote it, under its name; see ProviderData. */
  providerData?: ProviderData;
  /**
   * Why the model stopped, when the reply alone does not show it: `max_tokens` (its output limit:
   * the text is cut), `content_filtered` (a guardrail or content filter withheld the answer: the
   * text is the filter's). Absent for an ordinary end. Tool calls are still decided by their
   * presence, never by this.
   */
  stop?: ModelStop;
  usage: TokenUsage;
}

export type ModelStop = 'max_tokens' | 'content_filtered';

export interface ModelClient {
  complete(request: ModelRequest): Promise<ModelReply>;
}
