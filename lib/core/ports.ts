/**
 * The interfaces the core owns. Adapters (OpenAI, MCP, DynamoDB) implement them; the loop and the
 * turn service only ever see these.
 */
import type { HistoryMessage, Message, Reasoning, TokenUsage, ToolCall } from './messages.ts';
import type { TurnResult } from './turn.ts';

export type JsonObject = { [key: string]: unknown };

/** A tool as offered to the model: `parameters` is the MCP tool's `inputSchema`. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonObject;
}

export interface ModelRequest {
  messages: Message[];
  tools: ToolDefinition[];
  signal?: AbortSignal;
  /** Upper bound for this call, retries included. */
  timeoutMs?: number;
}

/** A model reply, normalized: tool calls decided by their presence, ids unique, content or null. */
export interface ModelReply {
  content: string | null;
  toolCalls: ToolCall[];
  reasoning?: Reasoning;
  /** Sent back with the assistant message, as the provider requires (Gemini's `extra_content`). */
  extraContent?: Record<string, unknown>;
  usage: TokenUsage;
}

export interface ModelClient {
  complete(request: ModelRequest): Promise<ModelReply>;
}

export interface ToolOutput {
  /** False when the server reported `isError`. */
  ok: boolean;
  /** The result rendered as text for the tool message (before the output cap). */
  text: string;
}

export interface ToolServerStatus {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  status: 'connected' | 'failed';
  toolCount: number;
  error?: string;
}

export interface ToolGateway {
  /** Every tool of every reachable server, under the names the model sees. */
  listTools(): Promise<ToolDefinition[]>;
  /** Throws on transport failures and timeouts; a tool's own failure is `ok: false`. */
  callTool(
    name: string,
    args: JsonObject,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<ToolOutput>;
  status(): Promise<ToolServerStatus[]>;
  close(): Promise<void>;
}

/** A conversation, scoped to its owner when authentication is on. */
export interface ConversationKey {
  conversationId: string;
  owner?: string;
}

export interface StoredTurn {
  turn: number;
  requestId: string;
  createdAt: string;
  completedAt: string;
  messages: HistoryMessage[];
  result: TurnResult;
}

export interface TurnClaim {
  key: ConversationKey;
  turn: number;
  requestId: string;
  createdAt: string;
}

export type BeginTurnOutcome =
  | { kind: 'claimed'; claim: TurnClaim; history: HistoryMessage[] }
  | { kind: 'replay'; turn: StoredTurn };

export interface BeginTurnInput {
  key: ConversationKey;
  requestId: string;
  /** How long the claim holds before another request may take over a crashed turn. */
  leaseMs: number;
  /** Estimated tokens of history to load, newest turns first, whole turns only. */
  historyTokenBudget: number;
}

export interface ConversationStore {
  /**
   * Reads the history and claims the next turn, or returns the stored turn of an earlier request
   * with the same `requestId`. Throws `ConflictError` when another turn is running.
   */
  beginTurn(input: BeginTurnInput): Promise<BeginTurnOutcome>;
  /** Stores the turn whole, or throws; never half-written. */
  completeTurn(claim: TurnClaim, messages: HistoryMessage[], result: TurnResult): Promise<void>;
  /** Gives the claim back when the turn produced nothing worth keeping. */
  releaseTurn(claim: TurnClaim): Promise<void>;
  /** Completed turns, oldest first; empty when the conversation does not exist. */
  getConversation(key: ConversationKey): Promise<StoredTurn[]>;
  /** Returns how many turns were deleted (0 when the conversation did not exist). */
  deleteConversation(key: ConversationKey): Promise<number>;
}

/** Operational metrics of turns (rounds, tool calls and errors, tokens, latency). */
export interface TurnMetrics {
  turnCompleted(result: TurnResult, durationMs: number): void;
  turnFailed(code: string, durationMs: number): void;
}
