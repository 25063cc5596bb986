/**
 * `node test/bench/fit.ts`: the CPU time to fit an oversized turn under the stored item limit, with
 * the measure completeTurn uses (gzip of the whole turn, then DynamoDB's size rules). Each
 * measurement costs time in the size of the turn, so the number of measurements is what decides
 * whether fitting is linear; both are printed.
 */
import { randomBytes } from 'node:crypto';
import { fitMessagesForStorage, STORED_ITEM_TARGET_BYTES } from '../../lib/adapters/dynamodb/fit.ts';
import { completedTurnItem } from '../../lib/adapters/dynamodb/item.ts';
import { itemSizeBytes } from '../../lib/adapters/dynamodb/item-size.ts';
import type { HistoryMessage } from '../../lib/core/messages.ts';
import type { TurnClaim } from '../../lib/core/ports.ts';
import type { TurnResult } from '../../lib/core/turn.ts';

const claim: TurnClaim = { key: { conversationId: 'bench' }, turn: 1, requestId: 'request-1', createdAt: '2025-01-01T12:00:00.000Z' };
const result: TurnResult = { conversationId: 'bench', turn: 1, reply: 'Done.', stopReason: 'completed', rounds: 2, toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 } };

/** Random base64: gzip saves little on it, so the item is far over the limit and cutting must do the work. */
const incompressible = (characters: number) => randomBytes(Math.ceil((characters * 3) / 4)).toString('base64').slice(0, characters);
/** Log-like lines, each with a random request id: gzip saves most, not all, of it. */
const logLines = (characters: number) =>
  Array.from({ length: Math.ceil(characters / 40) }, (_, line) => `${line}: request ${randomBytes(4).toString('hex')} ok\n`).join('').slice(0, characters);

function turnWithOutputs(outputs: string[]): HistoryMessage[] {
  const ids = outputs.map((_, index) => `call_${index}`);
  return [
    { role: 'user', content: 'Read the files.' },
    { role: 'assistant', content: null, toolCalls: ids.map((id) => ({ id, name: 'read', arguments: '{}' })) },
    ...outputs.map((content, index) => ({ role: 'tool' as const, toolCallId: `call_${index}`, name: 'read', content })),
    { role: 'assistant', content: 'Read them.', toolCalls: [] },
  ];
}

/** As completeTurn measures a candidate: the whole item, messages gzipped. */
const storedBytes = (messages: HistoryMessage[]) =>
  itemSizeBytes({ ...completedTurnItem('-#bench', claim, { messages, result, completedAt: claim.createdAt, expiresAt: 1 }) });

function run(name: string, messages: HistoryMessage[]) {
  let measurements = 0;
  const counted = (candidate: HistoryMessage[]) => (measurements += 1, storedBytes(candidate));
  const before = process.cpuUsage();
  const fit = fitMessagesForStorage(messages, counted);
  const cpu = process.cpuUsage(before);
  return {
    turn: name,
    'CPU ms': Math.round((cpu.user + cpu.system) / 1000),
    measurements,
    'original bytes': storedBytes(messages),
    'stored bytes': fit.fits ? storedBytes(fit.messages) : fit.smallestBytes,
    'limit bytes': STORED_ITEM_TARGET_BYTES,
    'truncated outputs': fit.fits ? fit.truncatedToolMessages : 'does not fit',
  };
}

console.table([
  run('240 × 16,000 incompressible', turnWithOutputs(Array.from({ length: 240 }, () => incompressible(16_000)))),
  run('240 × 16,000 log lines', turnWithOutputs(Array.from({ length: 240 }, () => logLines(16_000)))),
  run('mixed: 200 × 300 + 40 × 16,000 incompressible', turnWithOutputs([
    ...Array.from({ length: 200 }, () => incompressible(300)),
    ...Array.from({ length: 40 }, () => incompressible(16_000)),
  ])),
]);
