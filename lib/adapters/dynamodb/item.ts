import { gunzipSync, gzipSync } from 'node:zlib';
import { StoreError } from '../../core/errors.ts';
import { estimateTokens } from '../../core/history.ts';
import type { HistoryMessage } from '../../core/messages.ts';
import type { StoredTurn, TurnClaim } from '../../core/ports.ts';
import type { TurnResult } from '../../core/turn.ts';
import type { TurnSummary } from './turn-scan.ts';

/**
 * The stored item shape of a turn, and its conversion to and from domain values. `v` versions the
 * shape: an item written by a newer schema is refused rather than misread.
 */
export const ITEM_VERSION = 1;

export interface TurnItem {
  pk: string;
  /** The turn number: 1, 2, 3... */
  sk: number;
  v: number;
  requestId: string;
  status: 'pending' | 'complete';
  /** ms epoch; only while pending. */
  leaseExpiresAt?: number;
  createdAt: string;
  completedAt?: string;
  /** epoch seconds: the table's TTL attribute. */
  expiresAt: number;
  /** gzip of the JSON of the turn's HistoryMessage[] (text compresses well; the item limit is 400 KB). */
  messages?: Uint8Array;
  /** The TurnResult as JSON text: tool arguments are arbitrary JSON that a DynamoDB map may reject. */
  result?: string;
  /** estimateTokens(messages), so history can be budgeted without decompressing every turn. */
  tokens?: number;
}

/** A turn's TTL, in epoch seconds: each turn is kept `ttlDays` after it was last written. */
export const expiresAtSeconds = (nowMs: number, ttlDays: number): number =>
  Math.floor(nowMs / 1000) + Math.round(ttlDays * 86_400);

export function pendingTurnItem(
  pk: string,
  claim: TurnClaim,
  times: { leaseExpiresAt: number; expiresAt: number },
): TurnItem {
  return { ...itemHeader(pk, claim), status: 'pending', leaseExpiresAt: times.leaseExpiresAt, expiresAt: times.expiresAt };
}

/** What every turn item carries, pending or complete. */
const itemHeader = (pk: string, claim: TurnClaim) => ({ pk, sk: claim.turn, v: ITEM_VERSION, requestId: claim.requestId, createdAt: claim.createdAt });

/** The item as it will read once the turn is complete (the claim's item, updated). */
export function completedTurnItem(
  pk: string,
  claim: TurnClaim,
  turn: { messages: HistoryMessage[]; result: TurnResult; completedAt: string; expiresAt: number },
): TurnItem {
  return {
    ...itemHeader(pk, claim),
    status: 'complete',
    completedAt: turn.completedAt,
    expiresAt: turn.expiresAt,
    messages: gzipSync(JSON.stringify(turn.messages)),
    result: JSON.stringify(turn.result),
    tokens: estimateTokens(turn.messages),
  };
}

/** Checks the version and the fields every item has; the heavy fields are decoded on demand. */
export function readTurnItem(raw: Record<string, unknown>): TurnSummary & { item: TurnItem } {
  if (raw.v !== ITEM_VERSION) {
    throw new StoreError(
      'unsupported_item_version',
      `Stored turn ${String(raw.pk)}/${String(raw.sk)} has item version ${String(raw.v)}; this code reads version ${ITEM_VERSION}.`,
    );
  }
  const item = raw as unknown as TurnItem;
  const valid =
    typeof item.pk === 'string' &&
    typeof item.sk === 'number' &&
    typeof item.requestId === 'string' &&
    (item.status === 'pending' || item.status === 'complete');
  if (!valid) throw invalidItem(raw, 'a key, requestId or status is missing');
  return {
    turn: item.sk,
    requestId: item.requestId,
    status: item.status,
    leaseExpiresAt: item.leaseExpiresAt,
    tokens: item.tokens ?? 0,
    item,
  };
}

export function decodeMessages(item: TurnItem): HistoryMessage[] {
  if (!(item.messages instanceof Uint8Array)) throw invalidItem(item, 'messages are missing');
  try {
    return JSON.parse(gunzipSync(item.messages).toString('utf8')) as HistoryMessage[];
  } catch (error) {
    throw invalidItem(item, 'messages are not gzipped JSON', error);
  }
}

export function decodeStoredTurn(item: TurnItem): StoredTurn {
  if (item.status !== 'complete' || typeof item.result !== 'string' || typeof item.completedAt !== 'string') {
    throw invalidItem(item, 'it is not a complete turn');
  }
  let result: TurnResult;
  try {
    result = JSON.parse(item.result) as TurnResult;
  } catch (error) {
    throw invalidItem(item, 'result is not JSON', error);
  }
  return {
    turn: item.sk,
    requestId: item.requestId,
    createdAt: item.createdAt,
    completedAt: item.completedAt,
    messages: decodeMessages(item),
    result,
  };
}

const invalidItem = (item: Record<string, unknown> | TurnItem, reason: string, cause?: unknown) =>
  new StoreError('invalid_stored_item', `Stored turn ${String(item.pk)}/${String(item.sk)} cannot be read: ${reason}.`, {
    cause,
  });
