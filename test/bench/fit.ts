/**
 * `node test/bench/fit.ts`: the CPU time to fit an oversized turn under the stored item limit, with
 * the measure completeTurn uses (gzip of the whole turn, then DynamoDB's size rules). Each
 * measurement costs time in the size of the turn, so the number of measurements is what decides
 * whether fitting is linear; both are printed.
 */
import { randomBytes } from 'node:crypto';
import { fitMessagesForStorage, STORED_ITEM_TARGET_BYTES } from '../../lib/adapters/dynamodb/fit.ts';
import type { HistoryMessage } from '../../lib/core/messages.ts';
import { incompressibleText, storedItemBytes, turnWithOutputs } from '../support/turn-messages.ts';

/** Log-like lines, each with a random request id: gzip saves most, not all, of it. */
const logLines = (characters: number) =>
  Array.from({ length: Math.ceil(characters / 40) }, (_, line) => `${line}: request ${randomBytes(4).toString('hex')} ok\n`).join('').slice(0, characters);

function run(name: string, messages: HistoryMessage[]) {
  let measurements = 0;
  const counted = (candidate: HistoryMessage[]) => (measurements += 1, storedItemBytes(candidate));
  const before = process.cpuUsage();
  const fit = fitMessagesForStorage(messages, counted);
  const cpu = process.cpuUsage(before);
  return {
    turn: name,
    'CPU ms': Math.round((cpu.user + cpu.system) / 1000),
    measurements,
    'original bytes': storedItemBytes(messages),
    'stored bytes': fit.fits ? storedItemBytes(fit.messages) : fit.smallestBytes,
    'limit bytes': STORED_ITEM_TARGET_BYTES,
    'truncated outputs': fit.fits ? fit.truncatedToolMessages : 'does not fit',
  };
}

const outputs = (count: number, make: () => string) => Array.from({ length: count }, make);

console.table([
  run('240 × 16,000 incompressible', turnWithOutputs(...outputs(240, () => incompressibleText(16_000)))),
  run('240 × 16,000 log lines', turnWithOutputs(...outputs(240, () => logLines(16_000)))),
  run('mixed: 200 × 300 + 40 × 16,000 incompressible', turnWithOutputs(
    ...outputs(200, () => incompressibleText(300)),
    ...outputs(40, () => incompressibleText(16_000)),
  )),
]);
