/**
 * Domain messages: the conversation as the agent sees it. Providers' wire formats and the stored
 * item shape are converted to and from these only inside adapters.
 */

export interface ToolCall {
  /** Unique within the conversation turn; the tool message answering it carries the same id. */
  id: string;
  /** The name the model sees (may be a mapped name, see the MCP gateway). */
  name: string;
  /** The arguments exactly as the model produced them, as JSON text (possibly not valid JSON). */
  arguments: string;
  /** Provider data that must come back with the call (Gemini 3's thought signature); opaque. */
  extraContent?: Record<string, unknown>;
}

export interface SystemMessage {
  role: 'system';
  content: string;
}

/** An image as MCP and model APIs carry it: base64 data and its media type. */
export interface ImageData {
  mimeType: string;
  data: string;
}

export interface UserMessage {
  role: 'user';
  content: string;
  /**
   * Images shown with the text (tool results' images, model.imageResults): only in what is sent to
   * a model that accepts them, never in a stored conversation.
   */
  images?: ImageData[];
}

/** Reasoning text some providers return and some require back (DeepSeek thinking mode). */
export interface Reasoning {
  /** The wire field it arrived in, so it is sent back under the same name. */
  field: string;
  text: string;
}

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  toolCalls: ToolCall[];
  reasoning?: Reasoning;
  /** Provider data that must come back with the message (Gemini's thought signature); opaque. */
  extraContent?: Record<string, unknown>;
}

export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  name: string;
  content: string;
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** Messages stored for a conversation: everything but the system prompt, which is configuration. */
export type HistoryMessage = UserMessage | AssistantMessage | ToolMessage;

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

