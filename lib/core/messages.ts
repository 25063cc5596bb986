/**
 * Domain messages: the conversation as the agent sees it. Providers' wire formats and the stored
 * item shape are converted to and from these only inside adapters.
 */
import type { JsonObject } from './json.ts';

/**
 * What a model adapter keeps on a message (or a tool call) for itself, under its provider's name
 * (`openai`, `bedrock`): wire details it must send back exactly as it received them (a reasoning
 * field's name, a signature, Gemini's `extra_content`). Opaque to the core: only the adapter that
 * wrote an entry reads it, and every other provider ignores it, so a conversation can move from
 * one provider to another without carrying one provider's wire into another's request.
 */
export type ProviderData = { [providerName: string]: JsonObject };

export interface ToolCall {
  /** Unique within the conversation turn; the tool message answering it carries the same id. */
  id: string;
  /** The name the model sees (may be a mapped name, see the MCP gateway). */
  name: string;
  /** The arguments exactly as the model produced them, as JSON text (possibly not valid JSON). */
  arguments: string;
  /** What the provider needs back with the call (Gemini 3's thought signature); see ProviderData. */
  providerData?: ProviderData;
}

interface SystemMessage {
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

/**
 * The reasoning a model wrote before its answer, as text: shown on the page, streamed as
 * `reasoning-delta`, kept in the trace. How it travels on the wire (which field, which signature)
 * is the provider's data.
 */
export interface Reasoning {
  text: string;
}

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  toolCalls: ToolCall[];
  reasoning?: Reasoning;
  /** What the provider needs back with the message; see ProviderData. */
  providerData?: ProviderData;
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
  /** Every prompt token, those the provider's prompt cache read or wrote included (budgets count them all). */
  promptTokens: number;
  completionTokens: number;
  /** Of promptTokens, those read from the provider's prompt cache, when it says (Bedrock, OpenAI's cached_tokens). */
  cacheReadTokens?: number;
  /** Of promptTokens, those written to the prompt cache, when the provider says (Bedrock's cachePoint). */
  cacheWriteTokens?: number;
}

