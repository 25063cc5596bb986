import type { CallerToken } from '../core/caller-token.ts';
import type { JsonObject } from '../core/json.ts';
import type { HistoryMessage } from '../core/messages.ts';
import type { ResponseFormat } from '../core/response-format.ts';
import type { ConversationKey } from '../core/ports/conversation-store.ts';
import type { FileInfo, StoredFile } from '../core/ports/file-store.ts';
import type { TraceContext } from '../core/trace-context.ts';
import type { TurnResult } from '../core/turn.ts';
import type { TurnTraceView } from '../core/turn-trace.ts';
import type { ConversationPageRequest } from './conversations/conversation-page.ts';
import type { ConversationView } from './conversations/conversation-view.ts';
import type { MemoryApi } from './conversations/memory-api.ts';
import type { HealthReport } from './health.ts';
import type { LoopEvent } from './loop/loop-events.ts';
import type { StoredTurn } from './turn/stored-turn.ts';
import type { ApprovalDecision } from './turn/validate-input.ts';
import type { UserConnectionsApi } from '../core/ports/user-connections.ts';

export type { ConversationView } from './conversations/conversation-view.ts';
export type { ConversationPageRequest } from './conversations/conversation-page.ts';
export type { HealthReport } from './health.ts';
export type { MemoryApi, NotePage, NotePageRequest } from './conversations/memory-api.ts';
export type { TurnTraceView } from '../core/turn-trace.ts';
export type { StoredTurn } from './turn/stored-turn.ts';

/** What every request that runs a turn carries besides its question or decisions. */
interface TurnRequest {
  /** Makes the call idempotent: a retry with the same id gets the stored turn. */
  requestId?: string;
  /** Scopes the conversation to its owner when authentication is on. */
  owner?: string;
  /**
   * The verified claims of the caller's identity (groups, tenant, …), as the HTTP layer read them
   * from what API Gateway's authorizer checked: attributes of the principal in the tool policy
   * (agent.yml toolPolicy). Never taken from what a client merely sent.
   */
  claims?: JsonObject;
  /** Epoch ms by which the turn must be stored; defaults to now + turn.timeoutSeconds. */
  deadlineAt?: number;
  onEvent?: (event: LoopEvent) => void;
  /** The caller's W3C trace context: the turn's MCP calls carry it on (and its spans join it, with telemetry on). */
  trace?: TraceContext;
  /**
   * The bearer token the caller presented (AUTH_MODE=cognito), for MCP servers that act on the
   * caller's behalf (auth.mode token-exchange, enterprise-managed). Memory only: never stored,
   * queued or logged; a turn without one (a queued turn) answers such calls with the reason.
   */
  callerToken?: CallerToken;
}

export interface AskInput extends TurnRequest {
  /** Omit to start a new conversation. */
  conversationId?: string;
  message: string;
  /**
   * A stateless caller's own history (OpenAI-compatible clients send the whole conversation each
   * time): only for a new conversation, which stores them as the beginning of its first turn, cut
   * to history.maxTokens as a stored history is (the newest whole exchanges).
   */
  earlierMessages?: HistoryMessage[];
  /** The caller's instructions for this turn, after the configured system prompt. */
  instructions?: string;
  /**
   * A structured answer (docs/structured-answers.md): the final answer must be JSON valid against
   * the schema; the result carries it parsed as `output`.
   */
  responseFormat?: ResponseFormat;
}

export interface DecideInput extends TurnRequest {
  conversationId: string;
  /** One decision for every call waiting for approval. */
  decisions: ApprovalDecision[];
}

/** What the owner of a conversation may do with its files over the API. */
export interface FilesApi {
  /** GET /conversations/{id}/files: every file of the conversation, by name. */
  listFiles(key: ConversationKey): Promise<{ conversationId: string; files: FileInfo[] }>;
  /** GET /conversations/{id}/files/{name}: one file, whole. */
  readFile(key: ConversationKey, name: string): Promise<StoredFile>;
}

/**
 * The agent behind every entry point: HTTP, streaming, queue, and embedding code. Its memory API
 * (memory: true) is GET and DELETE /memory; its files API (files: true), a conversation's files.
 */
export interface Agent extends MemoryApi, FilesApi {
  /** Asks a question: a new turn (or the stored one, for a retried requestId). */
  ask(input: AskInput): Promise<TurnResult>;
  /** Decides the calls a paused turn waits on, and lets the turn go on. */
  decide(input: DecideInput): Promise<TurnResult>;
  /** A page of the conversation's turns, oldest first (20 unless `limit` says otherwise), with a nextToken while more remain. */
  getConversation(key: ConversationKey, page?: ConversationPageRequest): Promise<ConversationView>;
  deleteConversation(key: ConversationKey): Promise<void>;
  /** Each model call of one turn, request and reply in full, as the turn's trace kept them (agent.yml `trace`). */
  getTurnTrace(key: ConversationKey, turn: number): Promise<TurnTraceView>;
  /**
   * One turn as stored now (running, paused or complete), for a client resuming the turn's event
   * stream; undefined when the conversation (of this owner) has no such turn.
   */
  readTurn(key: ConversationKey, turn: number): Promise<StoredTurn | undefined>;
  health(): Promise<HealthReport>;
  /**
   * Connects the MCP servers and lists their tools now, as the first question would; the Lambda
   * functions call it while they load, so a server process starts during the init phase rather
   * than on the first turn's path. A server that fails is retried as it would be at a question;
   * this never rejects.
   */
  connect(): Promise<void>;
  close(): Promise<void>;
  /** The owners' own accounts at per-user servers (auth.mode: per-user; docs/users-own-accounts.md); absent when there are none. */
  connections?: UserConnectionsApi;
}
