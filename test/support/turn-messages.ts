import { randomBytes } from 'node:crypto';
import { turnItem } from '../../lib/adapters/dynamodb/item.ts';
import { itemSizeBytes } from '../../lib/adapters/dynamodb/item-size.ts';
import type { HistoryMessage, ToolMessage } from '../../lib/core/messages.ts';
import type { TurnWrite } from '../../lib/core/ports/conversation-store.ts';
import type { TurnResult } from '../../lib/core/turn.ts';

export const toolMessage = (id: string, content: string): ToolMessage => ({ role: 'tool', toolCallId: id, name: 'read', content });

/** A turn that called one tool per output, all in one round, then answered. */
export function turnWithOutputs(...outputs: string[]): HistoryMessage[] {
  const ids = outputs.map((_, index) => `call_${index}`);
  return [
    { role: 'user', content: 'Read the files.' },
    { role: 'assistant', content: null, toolCalls: ids.map((id) => ({ id, name: 'read', arguments: '{}' })) },
    ...outputs.map((output, index) => toolMessage(`call_${index}`, output)),
    { role: 'assistant', content: 'Read them.', toolCalls: [] },
  ];
}

/** Random bytes as base64: text that gzip can hardly shrink, like a binary tool output would be. */
export const incompressibleText = (characters: number) =>
  randomBytes(Math.ceil((characters * 3) / 4)).toString('base64').slice(0, characters);

const result: TurnResult = {
  conversationId: 'c1',
  turn: 1,
  reply: 'Read them.',
  stopReason: 'completed',
  rounds: 2,
  toolCalls: [],
  usage: { promptTokens: 1, completionTokens: 1 },
};

const write: TurnWrite = { status: 'complete', claimId: 'claim-1', requestIds: ['request-1'], createdAt: '2025-01-01T12:00:00.000Z', completedAt: '2025-01-01T12:00:05.000Z', messages: [], result };

/** The size of the completed turn's item, measured as the store measures it: messages gzipped. */
export const storedItemBytes = (messages: HistoryMessage[]) =>
  itemSizeBytes({ ...turnItem('-#c1', 1, write, messages, { expiresAt: 1, writtenAt: 1 }) });
