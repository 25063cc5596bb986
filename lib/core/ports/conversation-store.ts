/** Where conversations are kept: turns claimed, written conditionally, read by page. */
import type { JsonObject } from '../json.ts';
import type { HistoryMessage } from '../messages.ts';
import type { TurnProgress, TurnResult } from '../turn.ts';

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
   * requestId → digest of the request that used it (lib/agent/turn/request-digest.ts): the same id with
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
