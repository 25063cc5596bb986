import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../lib/core/errors.ts';
import { estimateTokens } from '../../lib/core/history.ts';
import type { HistoryMessage } from '../../lib/core/messages.ts';
import type { TurnWrite } from '../../lib/core/ports/conversation-store.ts';
import { readTurnItem, turnItem } from '../../lib/adapters/dynamodb/item.ts';
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
  const write: TurnWrite = {
    status: 'complete',
    claimId: 'claim-3',
    requestIds: ['request-3', 'approval-3'],
    createdAt: '2025-01-01T12:00:00.000Z',
    completedAt: '2025-01-01T12:00:05.000Z',
    messages: turnWithOutputs('contents'),
    result: {
      conversationId: 'c1',
      turn: 3,
      reply: 'Read them.',
      stopReason: 'completed',
      rounds: 2,
      toolCalls: [{ id: 'call_0', name: 'read', arguments: { path: '/tmp', deep: [1, { x: null }] }, ok: true, durationMs: 4 }],
      usage: { promptTokens: 1, completionTokens: 2 },
    },
  };

  it('reads an item back as the record it was written from', () => {
    const item = turnItem('-#c1', 3, write, write.messages, { expiresAt: 1, writtenAt: 2 });
    expect(item).toMatchObject({ v: 2, requestId: 'request-3', status: 'complete', writtenAt: 2 });
    const record = readTurnItem({ ...item });
    expect(record).toMatchObject({ turn: 3, requestIds: ['request-3', 'approval-3'], claimId: 'claim-3', status: 'complete', tokens: estimateTokens(write.messages) });
    expect(record.messages()).toEqual(write.messages);
    expect(record.result()).toEqual(write.result);
  });

  it('refuses an item of an unknown version', () => {
    expect(() => readTurnItem({ pk: '-#c1', sk: 1, v: 3, requestId: 'r', status: 'complete' })).toThrow(
      expect.objectContaining({ code: 'unsupported_item_version' }),
    );
  });

  it('reports an item whose messages are not gzipped JSON as invalid, when they are read', () => {
    const record = readTurnItem({ pk: '-#c1', sk: 1, v: 2, requestId: 'r', status: 'complete', createdAt: 'x', completedAt: 'y', result: '{}', messages: new Uint8Array([1, 2]) });
    expect(() => record.messages()).toThrow(StoreError);
    expect(() => record.messages()).toThrow(expect.objectContaining({ code: 'invalid_stored_item' }));
  });
});

describe('messages stored before provider data', () => {
  // How the code before provider data stored wire details: on the message and the call themselves.
  const oldItem = (messages: unknown[]) => ({ pk: '-#c1', sk: 1, v: 2, requestId: 'r', requestIds: ['r'], claimId: 'r', status: 'complete', createdAt: 'then', completedAt: 'then', expiresAt: 1, writtenAt: 1, tokens: 9, result: '{}', messages: gzipSync(JSON.stringify(messages)) });

  it('are read with their reasoning field and extra_content as the OpenAI adapter\'s provider data', () => {
    const record = readTurnItem(oldItem([
      { role: 'user', content: '上海天气怎么样？' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'call_g1', name: 'getWeather', arguments: '{"city":"上海"}', extraContent: { google: { thought_signature: 'CALL-SIG' } } }],
        reasoning: { field: 'reasoning_content', text: 'The user wants the weather.' },
        extraContent: { google: { thought_signature: 'MSG-SIG' } },
      },
      { role: 'tool', toolCallId: 'call_g1', name: 'getWeather', content: '晴' },
      { role: 'assistant', content: '晴。', toolCalls: [], reasoning: { field: 'reasoning', text: '' } },
    ]));

    expect(record.messages()).toEqual<HistoryMessage[]>([
      { role: 'user', content: '上海天气怎么样？' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'call_g1', name: 'getWeather', arguments: '{"city":"上海"}', providerData: { openai: { extraContent: { google: { thought_signature: 'CALL-SIG' } } } } }],
        reasoning: { text: 'The user wants the weather.' },
        providerData: { openai: { reasoningField: 'reasoning_content', extraContent: { google: { thought_signature: 'MSG-SIG' } } } },
      },
      { role: 'tool', toolCallId: 'call_g1', name: 'getWeather', content: '晴' },
      { role: 'assistant', content: '晴。', toolCalls: [], reasoning: { text: '' }, providerData: { openai: { reasoningField: 'reasoning' } } },
    ]);
  });

  it('give Bedrock back what the Bedrock adapter kept under extraContent.bedrock, and nothing to the OpenAI adapter', () => {
    const reasoning = [{ text: 'Two things.', signature: 'EqQB' }];
    const record = readTurnItem(oldItem([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello.', toolCalls: [], reasoning: { field: 'reasoningContent', text: 'Two things.' }, extraContent: { bedrock: { reasoning, stopReason: 'guardrail_intervened' } } },
    ]));

    expect(record.messages()[1]).toEqual({ role: 'assistant', content: 'Hello.', toolCalls: [], reasoning: { text: 'Two things.' }, providerData: { bedrock: { reasoning, stopReason: 'guardrail_intervened' } } });
  });

  it('written in the new shape are read back as they are', () => {
    const messages: HistoryMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello.', toolCalls: [], reasoning: { text: 'R' }, providerData: { openai: { reasoningField: 'reasoning_content' }, bedrock: { reasoning: [{ text: 'R', signature: 'S' }] } } },
    ];

    expect(readTurnItem(oldItem(messages)).messages()).toEqual(messages);
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
