/**
 * The interfaces the core owns. Adapters (OpenAI, MCP, DynamoDB) implement them; the loop and the
 * turn service only ever see these.
 */
import type { TokenLimit } from './budget.ts';
import type { JsonObject } from './json.ts';
import type { HistoryMessage, ImageData, Message, ProviderData, Reasoning, TokenUsage, ToolCall } from './messages.ts';

export type { ImageData } from './messages.ts';
import type { TurnProgress, TurnResult } from './turn.ts';

export type { JsonObject } from './json.ts';

/** A tool as offered to the model: `parameters` is the MCP tool's `inputSchema`. */
export interface ToolDefinition {
  /** The name the model sees and calls (may be mapped, see the MCP gateway). */
  name: string;
  description: string;
  parameters: JsonObject;
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
  transport: 'stdio' | 'http' | 'sse';
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

/** An MCP elicitation (form mode): the server asks the user for values matching a flat schema. */
export interface ElicitationRequest {
  message: string;
  /** A flat JSON Schema object: properties of type string, number, integer, boolean or enum. */
  requestedSchema: JsonObject;
}

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

/** A conversation, scoped to its owner when authentication is on. */
export interface ConversationKey {
  conversationId: string;
  owner?: string;
}

/**
 * Where a stored turn is in its life:
 *
 *   running ──rounds──► complete
 *      │   └─ calls need approval ─► paused ─decisions─► running (same turn) ─► complete
 *      │                                └─ new message / expiry ─► complete (calls declined)
 *      └─ its process died ─► lease ends ─► the next request completes it (interrupted)
 */
export type TurnStatus = 'running' | 'paused' | 'complete';

/**
 * What the loop's extensions keep in a conversation (a todo list, a summary of old turns), each under
 * its extension's name. Stored with every turn: the newest turn's is the conversation's.
 */
export type ConversationState = Record<string, JsonObject>;

/** A stored turn at any point of its life; the heavy parts are decoded only when asked for. */
export interface TurnRecord {
  turn: number;
  /** The request that started the turn (its message), then each request that decided approvals. */
  requestIds: string[];
  /**
   * requestId → digest of the request that used it (lib/agent/request-digest.ts): the same id with
   * another request is refused. Absent on turns stored before digests, which replay to any request.
   */
  requestDigests?: Record<string, string>;
  /** The invocation holding the turn while it runs, or the last one that wrote it. */
  claimId: string;
  status: TurnStatus;
  createdAt: string;
  /** When the turn completed (complete turns only). */
  completedAt?: string;
  /** running: ms epoch after which its holder is presumed dead and the turn may be completed. */
  leaseExpiresAt?: number;
  /** paused: ms epoch after which its pending calls are declined. */
  approvalExpiresAt?: number;
  /** Estimated tokens of its messages, so history is budgeted without decoding every turn. */
  tokens: number;
  /**
   * The turn's messages: final when complete; so far when running or paused, where the last
   * round may be open (calls of its assistant message not yet answered).
   */
  messages(): HistoryMessage[];
  /** complete and paused: the turn result; running: what it has done so far. */
  result(): TurnResult | TurnProgress;
  /** The conversation's state as this turn left it (as it began, while it runs). */
  state(): ConversationState;
}

/** What a write stores for a turn (its number and key are the write's target). */
export interface TurnWrite {
  status: TurnStatus;
  claimId: string;
  requestIds: string[];
  requestDigests?: Record<string, string>;
  createdAt: string;
  completedAt?: string;
  leaseExpiresAt?: number;
  approvalExpiresAt?: number;
  messages: HistoryMessage[];
  result: TurnResult | TurnProgress;
  /** The conversation's state as the turn leaves it; empty when no extension keeps any. */
  state?: ConversationState;
}

/** A conditional write's expectation: the turn is still held by this claim, in this status. */
export interface TurnExpectation {
  claimId: string;
  status: TurnStatus;
}

/** Which turns a page holds: `limit` of them, after turn `after`. */
export interface PageRequest {
  limit: number;
  after?: number;
}

export interface TurnPage {
  records: TurnRecord[];
  /** True when turns follow the last one of this page. */
  more: boolean;
}

/** Ends a store request (and the client's own retries of it) when the turn's time is up. */
export interface StoreCallOptions {
  signal?: AbortSignal;
}

/**
 * Stored turns, one record per turn, written only conditionally. The decisions (who may run, what
 * is replayed, how a dead turn is completed) are the agent's; the store keeps the conditions true:
 * a write whose expectation does not hold throws TurnTakenError, and a write that committed is a
 * success even when its first response was lost.
 */
export interface ConversationStore {
  /**
   * The conversation's newest turns, newest first. Reading goes on (page by page) while `wantsMore`
   * says so after each page; an empty list for a conversation that does not exist.
   */
  readRecent(key: ConversationKey, wantsMore: (readSoFar: readonly TurnRecord[]) => boolean, options?: StoreCallOptions): Promise<TurnRecord[]>;
  /** Every turn, oldest first. */
  readAll(key: ConversationKey): Promise<TurnRecord[]>;
  /**
   * At most `limit` turns, oldest first, after turn `after` (from the first without it); `more`
   * says whether turns follow the page. Running turns are included: what to show is the agent's call.
   */
  readPage(key: ConversationKey, page: PageRequest, options?: StoreCallOptions): Promise<TurnPage>;
  /** Writes turn `turn` if it does not exist yet; throws TurnTakenError if it does. */
  create(key: ConversationKey, turn: number, write: TurnWrite, options?: StoreCallOptions): Promise<void>;
  /** Replaces turn `turn` if it meets `expected`; throws TurnTakenError if it does not (or is gone). */
  update(key: ConversationKey, turn: number, expected: TurnExpectation, write: TurnWrite, options?: StoreCallOptions): Promise<void>;
  /**
   * Moves a running turn's lease end to `leaseExpiresAt` if it meets `expected` (and changes nothing
   * else); a later end already stored stays. Throws TurnTakenError if the turn is no longer held.
   */
  renewLease(key: ConversationKey, turn: number, expected: TurnExpectation, leaseExpiresAt: number, options?: StoreCallOptions): Promise<void>;
  /** Deletes turn `turn` if it meets `expected`; does nothing otherwise. */
  remove(key: ConversationKey, turn: number, expected: TurnExpectation, options?: StoreCallOptions): Promise<void>;
  /** Returns how many turns were deleted (0 when the conversation did not exist). */
  deleteConversation(key: ConversationKey): Promise<number>;
}

/**
 * The per-owner counters of the budgets (agent.yml `limits`), kept beside the conversations: the
 * tokens an owner used per UTC day, and the turns an owner runs at once as leased slots. An
 * `owner` of undefined is the unscoped space (no authentication), counted as one owner.
 */
export interface OwnerCounters {
  /** The owner's tokens on UTC day `day` (whole days since 1970-01-01); 0 when none were counted. */
  tokensOn(owner: string | undefined, day: number, options?: StoreCallOptions): Promise<number>;
  /**
   * Adds `tokens` to the owner's day and returns the day's total after it. `callId` identifies the
   * model call: the same call counted twice (a retried write) is counted once.
   */
  addTokens(owner: string | undefined, day: number, tokens: number, callId: string, options?: StoreCallOptions): Promise<number>;
  /**
   * Takes one of the owner's `slots` turn slots until the lease ends: a free one, or one whose lease
   * ended before `now` (its process died). Undefined when every slot is held.
   */
  acquireTurnSlot(owner: string, request: TurnSlotRequest, options?: StoreCallOptions): Promise<TurnSlot | undefined>;
  /**
   * Moves a slot's lease end to `leaseExpiresAt` while its holder still has it: a long turn keeps
   * its slot. Throws TurnTakenError when the slot is no longer the holder's.
   */
  renewTurnSlot(slot: TurnSlot, leaseExpiresAt: number, options?: StoreCallOptions): Promise<void>;
  /** Gives a slot back, if its holder still has it. */
  releaseTurnSlot(slot: TurnSlot, options?: StoreCallOptions): Promise<void>;
}

interface TurnSlotRequest {
  /** How many turns the owner may run at once. */
  slots: number;
  /** The request taking the slot (its claim id): only it may give the slot back. */
  holder: string;
  /** ms epoch: after this the slot is free again, whether or not it was given back. */
  leaseExpiresAt: number;
  now: number;
}

export interface TurnSlot {
  owner: string;
  index: number;
  holder: string;
}

/** A note the agent keeps for an owner across conversations (agent.yml `memory`). */
export interface Note {
  /** Stable and unique among the owner's notes. */
  noteId: string;
  text: string;
  /** ISO time it was written. */
  createdAt: string;
  /** The conversation it was written in. */
  conversationId?: string;
}

/** A note to keep, and the most notes its owner may have. */
export interface NewNote {
  text: string;
  createdAt: string;
  conversationId?: string;
}

export type AddedNote = { kind: 'added'; note: Note } | { kind: 'full'; count: number };

/**
 * Notes per owner (undefined: no owner, authentication off). An owner's notes are few (the
 * configured maximum), so they are always read whole. The store keeps the maximum true even when
 * two conversations of one owner add a note at the same moment.
 */
export interface NoteStore {
  /** Every note of the owner, oldest first. */
  list(owner: string | undefined, options?: StoreCallOptions): Promise<Note[]>;
  /** Adds a note unless the owner already has `maxNotes`. */
  add(owner: string | undefined, note: NewNote, maxNotes: number, options?: StoreCallOptions): Promise<AddedNote>;
  /** Deletes one note; false when the owner has none by that id. */
  remove(owner: string | undefined, noteId: string, options?: StoreCallOptions): Promise<boolean>;
  /** Deletes every note of the owner; returns how many. */
  clear(owner: string | undefined, options?: StoreCallOptions): Promise<number>;
}

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
