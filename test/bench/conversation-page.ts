/**
 * `node test/bench/conversation-page.ts`: reading a long conversation on dynalite, as
 * GET /conversations/{id} did (every turn read and decompressed in one response) and as it does
 * now (a page of 20). Turns carry a few kilobytes of tool output each, as real turns do.
 */
import { randomUUID } from 'node:crypto';
import { createDynamoConversationStore } from '../../lib/adapters/dynamodb/store.ts';
import { readConversationPage } from '../../lib/agent/conversations/conversation-page.ts';
import { conversationView } from '../../lib/agent/conversations/conversation-view.ts';
import { claimWrite, completeWrite, newConversation, sampleTurnMessages } from '../support/store-contract.ts';
import { incompressibleText } from '../support/turn-messages.ts';
import { startLocalTable } from '../support/dynalite.ts';

const TURNS = 500;
const table = await startLocalTable();
const store = createDynamoConversationStore({ client: table.dynamo, tableName: table.tableName, ttlDays: 30 });
const key = newConversation('bench');
for (let turn = 1; turn <= TURNS; turn += 1) {
  const claimId = randomUUID();
  await store.create(key, turn, claimWrite(claimId, `r-${turn}`));
  const messages = sampleTurnMessages(turn);
  messages[2] = { ...messages[2]!, content: incompressibleText(4_000) } as (typeof messages)[2];
  await store.update(key, turn, { claimId, status: 'running' }, { ...completeWrite(key, turn, claimId, `r-${turn}`), messages });
}
const rules = { maxRounds: 8, historyTokenBudget: 16_000, approvalTtlSeconds: 86_400 };

async function measure(name: string, read: () => Promise<unknown>) {
  await read();
  const runs = 5;
  const started = performance.now();
  let bytes = 0;
  for (let run = 0; run < runs; run += 1) bytes = JSON.stringify(await read()).length;
  return { read: name, 'ms per request': Math.round((performance.now() - started) / runs), 'response bytes': bytes };
}

console.table([
  await measure(`every turn (${TURNS}), before`, async () => conversationView(key.conversationId, await store.readAll(key), Date.now(), rules)),
  await measure('one page of 20, now', () => readConversationPage(key, {}, { store, rules, hmacKey: Buffer.alloc(32), now: Date.now() })),
]);
await table.close();
