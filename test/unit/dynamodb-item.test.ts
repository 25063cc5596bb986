import { describe, expect, it } from 'vitest';
import { StoreError } from '../../lib/core/errors.ts';
import { estimateTokens } from '../../lib/core/history.ts';
import type { TurnClaim } from '../../lib/core/ports.ts';
import type { TurnResult } from '../../lib/core/turn.ts';
import { completedTurnItem, decodeStoredTurn, readTurnItem } from '../../lib/adapters/dynamodb/item.ts';
import { itemSizeBytes } from '../../lib/adapters/dynamodb/item-size.ts';
import { conversationPartitionKey } from '../../lib/adapters/dynamodb/keys.ts';
import { turnWithOutputs } from '../support/turn-messages.ts';

describe('itemSizeBytes', () => {
  it.each([
    [{ name: 'xé' }, 4 + 3],
    [{ data: new Uint8Array(10) }, 4 + 10],
    [{ n: 5 }, 1 + 21],
    [{ map: { k: 'v' } }, 3 + 3 + 1 + 1 + 1],
    [{ list: ['a', 'b'] }, 4 + 3 + 2 + 2],
  ])('measures %o as %i bytes', (item, bytes) => {
    expect(itemSizeBytes(item)).toBe(bytes);
  });
});

describe('turn item codec', () => {
  const claim: TurnClaim = { key: { conversationId: 'c1' }, turn: 3, requestId: 'request-3', createdAt: '2025-01-01T12:00:00.000Z' };
  const result: TurnResult = {
    conversationId: 'c1',
    turn: 3,
    reply: 'Read them.',
    stopReason: 'completed',
    rounds: 2,
    toolCalls: [{ id: 'call_0', name: 'read', arguments: { path: '/tmp', deep: [1, { x: null }] }, ok: true, durationMs: 4 }],
    usage: { promptTokens: 1, completionTokens: 2 },
  };

  it('decodes a completed turn back to the messages and result it was given', () => {
    const messages = turnWithOutputs('contents');
    const item = completedTurnItem('-#c1', claim, { messages, result, completedAt: '2025-01-01T12:00:05.000Z', expiresAt: 1 });
    const summary = readTurnItem({ ...item });
    expect(summary).toMatchObject({ turn: 3, requestId: 'request-3', status: 'complete', tokens: estimateTokens(messages) });
    expect(decodeStoredTurn(summary.item)).toEqual({
      turn: 3,
      requestId: 'request-3',
      createdAt: claim.createdAt,
      completedAt: '2025-01-01T12:00:05.000Z',
      messages,
      result,
    });
  });

  it('refuses an item of an unknown version', () => {
    expect(() => readTurnItem({ pk: '-#c1', sk: 1, v: 2, requestId: 'r', status: 'complete' })).toThrow(
      expect.objectContaining({ code: 'unsupported_item_version' }),
    );
  });

  it('reports an item whose messages are not gzipped JSON as invalid', () => {
    const item = { pk: '-#c1', sk: 1, v: 1, requestId: 'r', status: 'complete', createdAt: 'x', completedAt: 'y', result: '{}', messages: new Uint8Array([1, 2]) };
    const decode = () => decodeStoredTurn(readTurnItem(item).item);
    expect(decode).toThrow(StoreError);
    expect(decode).toThrow(expect.objectContaining({ code: 'invalid_stored_item' }));
  });
});

describe('conversationPartitionKey', () => {
  it('scopes a conversation to its owner, or to "-" without one', () => {
    expect(conversationPartitionKey({ conversationId: 'c1' })).toBe('-#c1');
    expect(conversationPartitionKey({ conversationId: 'c1', owner: 'alice' })).toBe('alice#c1');
  });

  it.each([
    [{ owner: '-', conversationId: 'c1' }, { conversationId: 'c1' }],
    [{ owner: 'a#b', conversationId: 'c1' }, { owner: 'a', conversationId: 'b#c1' }],
    [{ owner: 'a%23b', conversationId: 'c1' }, { owner: 'a#b', conversationId: 'c1' }],
  ])('never gives %o the key of %o', (first, second) => {
    expect(conversationPartitionKey(first)).not.toBe(conversationPartitionKey(second));
  });
});
