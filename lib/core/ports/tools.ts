/** The tools the agent offers the model and the gateway that runs them (MCP servers behind it), with the requests a server may make of the client while a call runs (elicitation, sampling). */
import type { JsonObject } from '../json.ts';
import type { ImageData } from '../messages.ts';

/** A tool as offered to the model: `parameters` is the MCP tool's `inputSchema`. */
export interface ToolDefinition {
  /** The name the model sees and calls (may be mapped, see the MCP gateway). */
  name: string;
  description: string;
  parameters: JsonObject;
  /**
   * The tool's `inputSchema` exactly as its MCP server listed it (JSON Schema 2020-12: `$schema`,
   * `$defs`, `$ref`, `$anchor` kept), where `parameters` is that schema fitted for model APIs.
   */
  inputSchema?: JsonObject;
  /** The MCP server serving it, and the tool's name as that server lists it. */
  server?: string;
  originalName?: string;
  /** What the server says the tool does (MCP tool annotations); hints, not guarantees. */
  annotations?: ToolAnnotations;
}

export interface ToolAnnotations {
  /** The tool does not change anything. */
  readOnlyHint?: boolean;
  /** The tool may destroy or irreversibly change something (meaningful when not read-only). */
  destructiveHint?: boolean;
}
export interface ToolOutput {
  /** False when the server reported `isError`. */
  ok: boolean;
  /** The result rendered as text for the tool message (before the output cap). */
  text: string;
  /**
   * Images of the result (content blocks of type image), which `text` only describes: for a model
   * that accepts images (model.imageResults). Never stored with the conversation.
   */
  images?: ImageData[];
}


/** A server's progress report on a running call (MCP notifications/progress). */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface ToolCallOptions {
  /**
   * The call's own: it may abort while the call runs, and nothing aborts it once the call is over.
   * The MCP SDK keeps its abort listener on the signal a request was given after the request ends,
   * so a signal that outlives the call (the turn's, or a built-in tool's that makes several calls)
   * would have it send notifications/cancelled for every finished request when it fires; such a
   * caller gives each call a signal of its own (followSignal, lib/core/deadline.ts).
   */
  signal: AbortSignal;
  /** Without an answer, or (once the server reports progress) without progress. */
  timeoutMs: number;
  /** The longest the call may run in all while its progress keeps extending `timeoutMs`. */
  maxTimeoutMs?: number;
  /** Progress the server reports; given, the call asks for it (a progressToken). */
  onProgress?: (progress: ToolProgress) => void;
  /**
   * Whom the call is made for, so a server can authorize per user. Sent as `_meta`, never as
   * credentials: servers are called with the service's own.
   */
  caller?: { conversationId: string; owner?: string };
}

export interface ToolServerStatus {
  name: string;
  transport: 'stdio' | 'http' | 'sse' | 'in-memory';
  /** As found now: a connected server answered a ping within the last few seconds. */
  status: 'connected' | 'failed';
  toolCount: number;
  error?: string;
  /** The MCP protocol revision negotiated with the server, once connected. */
  protocolVersion?: string;
  /** Tools the server listed that are not offered, and why (an invalid schema, say). */
  skippedTools?: Array<{ name: string; reason: string }>;
}

export interface ResourceReadOptions {
  signal: AbortSignal;
  timeoutMs: number;
}

export interface ToolGateway {
  /** Every tool of every reachable server, under the names the model sees. */
  listTools(): Promise<ToolDefinition[]>;
  /** Throws on transport failures and timeouts; a tool's own failure is `ok: false`. */
  callTool(name: string, args: JsonObject, options: ToolCallOptions): Promise<ToolOutput>;
  /**
   * Reads one resource of one server (resources/read), rendered as text for the model: text
   * contents as they are, binary contents described, never as base64. Only servers whose
   * configuration allows it; like callTool, a server's own refusal is `ok: false` and a transport
   * failure throws.
   */
  readResource?(server: string, uri: string, options: ResourceReadOptions): Promise<ToolOutput>;
  status(): Promise<ToolServerStatus[]>;
  close(): Promise<void>;
}

/**
 * What a request from an MCP server to the client (elicitation, sampling) was made during: the
 * server, and the tool calls running on it at that moment (usually the one that asked).
 */
export interface ServerRequestContext {
  server: string;
  toolCalls: Array<{ name: string; originalName: string; caller?: ToolCallOptions['caller'] }>;
  /** Fires when the server cancels its request or the session ends. */
  signal: AbortSignal;
}

/**
 * An MCP elicitation. Form mode: the server asks the user for values matching a flat schema. URL
 * mode (MCP 2025-11-25): the server asks the user to visit `url` (to sign in, pay, consent) and
 * takes no values, so its `requestedSchema` is the empty form.
 */
export interface ElicitationRequest {
  message: string;
  /** A flat JSON Schema object: properties of type string, number, integer, boolean or enum. */
  requestedSchema: JsonObject;
  mode?: 'url';
  /** URL mode: the page the user is to open, and the server's id for this request. */
  url?: string;
  elicitationId?: string;
}

/** What a URL-mode elicitation asks the user to fill in: nothing. */
export const URL_ELICITATION_FORM: JsonObject = { type: 'object', properties: {}, additionalProperties: false };

export type ElicitationResult =
  | { action: 'accept'; content: { [field: string]: string | number | boolean | string[] } }
  | { action: 'decline' }
  | { action: 'cancel' };

/** An MCP sampling request: the server asks the client's model for a completion. */
export interface SamplingRequest {
  /** Non-text content (images, audio) arrives described in text. */
  messages: Array<{ role: 'user' | 'assistant'; text: string }>;
  systemPrompt?: string;
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
}

export interface SamplingResult {
  text: string;
  /** The model that answered. */
  model: string;
  stopReason?: string;
}
