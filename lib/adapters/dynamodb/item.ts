import { gunzipSync, gzipSync } from 'node:zlib';
import { StoreError } from '../../core/errors.ts';
import { estimateTokens } from '../../core/history.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { ConversationState, TurnRecord, TurnStatus, TurnWrite } from '../../core/ports/conversation-store.ts';
import { emptyProgress, type TurnProgress, type TurnResult } from '../../core/turn.ts';
import { upgradeStoredMessages } from './stored-messages.ts';

/**
 * The stored item shape of a turn, and its conversion to and from domain values. `v` versions the
 * shape: version 1 items (before approvals and round records) are still read; an item written by
 * a newer schema is refused rather than misread.
 */
const ITEM_VERSION = 2;

/** The stored status: a running turn is `pending` (its name since version 1). */
type ItemStatus = 'pending' | 'paused' | 'complete';

export interface TurnItem {
  pk: string;
  /** The turn number: 1, 2, 3... */
  sk: number;
  v: number;
  /** The request that started the turn (the first of requestIds). */
  requestId: string;
  requestIds: string[];
  /** requestId → digest of its request (a map; absent on items written before digests). */
  requestDigests?: Record<string, string>;
  /** The invocation holding (or that last wrote) the turn; every conditional write checks it. */
  claimId: string;
  status: ItemStatus;
  createdAt: string;
  completedAt?: string;
  /** ms epoch; only while pending. */
  leaseExpiresAt?: number;
  /** ms epoch; only while paused. */
  approvalExpiresAt?: number;
  /** epoch seconds: the table's TTL attribute. */
  expiresAt: number;
  /** gzip of the JSON of the turn's HistoryMessage[] (text compresses well; the item limit is 400 KB). */
  messages: Uint8Array;
  /** The TurnResult (paused, complete) or TurnProgress (pending) as JSON text: tool arguments are arbitrary JSON a DynamoDB map may reject. */
  result: string;
  /** estimateTokens(messages), so history can be budgeted without decompressing every turn. */
  tokens: number;
  /** The conversation's state (the extensions') as JSON text; absent when empty. */
  state?: string;
  /**
   * ms epoch of this write, increasing with every write of the item: an update applies only over an
   * older one, so a write delayed on the network (its client gave up and retried) can never land
   * over a newer one.
   */
  writtenAt: number;
}

/** A turn's TTL, in epoch seconds: each turn is kept `ttlDays` after it was last written. */
export const expiresAtSeconds = (nowMs: number, ttlDays: number): number =>
  Math.floor(nowMs / 1000) + Math.round(ttlDays * 86_400);

export const itemStatus = (status: TurnStatus): ItemStatus => (status === 'running' ? 'pending' : status);

/** The item for a write; `messages` are the (possibly fitted) messages to store. */
export function turnItem(pk: string, turn: number, write: TurnWrite, messages: readonly HistoryMessage[], times: { expiresAt: number; writtenAt: number }): TurnItem {
  const item: TurnItem = {
    pk,
    sk: turn,
    v: ITEM_VERSION,
    requestId: write.requestIds[0] ?? '',
    requestIds: write.requestIds,
    claimId: write.claimId,
    status: itemStatus(write.status),
    createdAt: write.createdAt,
    expiresAt: times.expiresAt,
    writtenAt: times.writtenAt,
    messages: gzipSync(JSON.stringify(messages)),
    result: JSON.stringify(write.result),
    tokens: estimateTokens(messages),
  };
  if (write.requestDigests !== undefined && Object.keys(write.requestDigests).length > 0) item.requestDigests = write.requestDigests;
  if (write.completedAt !== undefined) item.completedAt = write.completedAt;
  if (write.leaseExpiresAt !== undefined) item.leaseExpiresAt = write.leaseExpiresAt;
  if (write.approvalExpiresAt !== undefined) item.approvalExpiresAt = write.approvalExpiresAt;
  if (write.state !== undefined && Object.keys(write.state).length > 0) item.state = JSON.stringify(write.state);
  return item;
}

/** What a conditional write compares: who holds the turn, and its status (version 1 items included). */
export interface ItemHolder {
  requestIds: string[];
  claimId: string;
  status: TurnStatus;
  leaseExpiresAt?: number;
}

export function readHolder(raw: Record<string, unknown>): ItemHolder {
  const item = checkedItem(raw);
  const holder: ItemHolder = { requestIds: requestIdsOf(item), claimId: claimIdOf(item), status: domainStatus(item.status) };
  if (typeof item.leaseExpiresAt === 'number') holder.leaseExpiresAt = item.leaseExpiresAt;
  return holder;
}

/** A stored item as a TurnRecord; messages and result are decoded on first use. */
export function readTurnItem(raw: Record<string, unknown>): TurnRecord {
  const item = checkedItem(raw);
  const record: TurnRecord = {
    turn: item.sk,
    requestIds: requestIdsOf(item),
    claimId: claimIdOf(item),
    status: domainStatus(item.status),
    createdAt: item.createdAt,
    tokens: typeof item.tokens === 'number' ? item.tokens : 0,
    messages: once(() => decodeMessages(item)),
    result: once(() => decodeResult(item)),
    state: once(() => decodeState(item)),
  };
  const digests = requestDigestsOf(item);
  if (digests) record.requestDigests = digests;
  if (typeof item.completedAt === 'string') record.completedAt = item.completedAt;
  if (typeof item.leaseExpiresAt === 'number') record.leaseExpiresAt = item.leaseExpiresAt;
  if (typeof item.approvalExpiresAt === 'number') record.approvalExpiresAt = item.approvalExpiresAt;
  return record;
}

function checkedItem(raw: Record<string, unknown>): TurnItem {
  if (raw.v !== ITEM_VERSION && raw.v !== 1) {
    throw new StoreError(
      'unsupported_item_version',
      `Stored turn ${String(raw.pk)}/${String(raw.sk)} has item version ${String(raw.v)}; this code reads versions 1 and ${ITEM_VERSION}.`,
    );
  }
  const item = raw as unknown as TurnItem;
  const valid =
    typeof item.pk === 'string' &&
    typeof item.sk === 'number' &&
    typeof item.requestId === 'string' &&
    (item.status === 'pending' || item.status === 'paused' || item.status === 'complete');
  if (!valid) throw invalidItem(raw, 'a key, requestId or status is missing');
  return item;
}

const domainStatus = (status: ItemStatus): TurnStatus => (status === 'pending' ? 'running' : status);

/** Only string digests count: anything else is read as no digest (the turn replays as before them). */
function requestDigestsOf(item: TurnItem): Record<string, string> | undefined {
  const stored: unknown = item.requestDigests;
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return undefined;
  const digests = Object.entries(stored).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return digests.length > 0 ? Object.fromEntries(digests) : undefined;
}

/** Version 1 items carry one requestId and no claimId: the request was its own claim. */
const requestIdsOf = (item: TurnItem): string[] => (Array.isArray(item.requestIds) ? item.requestIds : [item.requestId]);
const claimIdOf = (item: TurnItem): string => (typeof item.claimId === 'string' ? item.claimId : item.requestId);

function decodeMessages(item: TurnItem): HistoryMessage[] {
  // A version 1 claim stored no messages: it never recorded anything.
  if (item.messages === undefined && item.status === 'pending') return [];
  if (!(item.messages instanceof Uint8Array)) throw invalidItem(item, 'messages are missing');
  try {
    // Messages stored before provider data kept wire details on the message (stored-messages.ts).
    return upgradeStoredMessages(JSON.parse(gunzipSync(item.messages).toString('utf8')) as HistoryMessage[]);
  } catch (error) {
    throw invalidItem(item, 'messages are not gzipped JSON', error);
  }
}

function decodeResult(item: TurnItem): TurnResult | TurnProgress {
  if (item.result === undefined && item.status === 'pending') return emptyProgress();
  if (typeof item.result !== 'string') throw invalidItem(item, 'result is missing');
  try {
    return JSON.parse(item.result) as TurnResult | TurnProgress;
  } catch (error) {
    throw invalidItem(item, 'result is not JSON', error);
  }
}

function decodeState(item: TurnItem): ConversationState {
  if (item.state === undefined) return {};
  try {
    return JSON.parse(item.state) as ConversationState;
  } catch (error) {
    throw invalidItem(item, 'state is not JSON', error);
  }
}

/** Decoded at most once, and only when asked for: most turns read are only counted, never opened. */
function once<T>(decode: () => T): () => T {
  let value: { decoded: T } | undefined;
  return () => structuredClone((value ??= { decoded: decode() }).decoded);
}

const invalidItem = (item: Record<string, unknown> | TurnItem, reason: string, cause?: unknown) =>
  new StoreError('invalid_stored_item', `Stored turn ${String(item.pk)}/${String(item.sk)} cannot be read: ${reason}.`, {
    cause,
  });
