/**
 * `node test/bench/trace-cost.ts`: what keeping turn traces costs in DynamoDB. A conversation of 40
 * turns (each a tool call with 2 KB of output, then an answer) runs through the real agent and the
 * DynamoDB store on dynalite, with traces off and on (the default). For each: the
 * stored size of a turn's item (as DynamoDB counts it; write units are per KB), and what the 40th
 * turn's history read fetched (Query requests and bytes; read units are per 4 KB).
 */
import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createAgent } from '../../lib/create-agent.ts';
import { createDynamoConversationStore } from '../../lib/adapters/dynamodb/store.ts';
import type { DynamoDocuments } from '../../lib/adapters/dynamodb/documents.ts';
import { itemSizeBytes } from '../../lib/adapters/dynamodb/item-size.ts';
import { conversationPartitionKey } from '../../lib/adapters/dynamodb/keys.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { createScriptedModel, textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import { testGateway, weatherTool } from '../support/agent-fixture.ts';
import { startLocalTable } from '../support/dynalite.ts';
import { incompressibleText } from '../support/turn-messages.ts';

const TURNS = 40;

async function run(name: string, yaml: string) {
  const table = await startLocalTable({ tableName: `trace-cost-${name.replace(/\W+/g, '-')}` });
  let queries = 0;
  let bytesRead = 0;
  let counting = false;
  // Counts the Query requests and the bytes of the items they returned, while `counting`.
  const dynamo: DynamoDocuments = {
    ...table.dynamo,
    query: async (input, options) => {
      const output = await table.dynamo.query(input, options);
      if (counting) {
        queries += 1;
        for (const item of output.Items ?? []) bytesRead += itemSizeBytes(item);
      }
      return output;
    },
  };
  const store = createDynamoConversationStore({ client: dynamo, tableName: table.tableName, ttlDays: 30 });
  const script = Array.from({ length: TURNS }, (_, turn) => [toolCallsReply([{ id: `call_${turn}`, name: 'getWeather', arguments: { city: '上海' } }]), textReply(`第 ${turn + 1} 次：上海多云，1°C。`)]).flat();
  const gateway = testGateway([weatherTool(() => ({ ok: true, text: incompressibleText(2_000) }))]);
  const agent = createAgent(parseConfig(yaml, { source: 'bench.yml', environment: {} }), { ownerCounters: createMemoryOwnerCounters(), model: createScriptedModel(script), gateway, store, logger: silentLogger });
  for (let turn = 1; turn <= TURNS; turn += 1) {
    counting = turn === TURNS;
    await agent.ask({ conversationId: 'bench', message: `第 ${turn} 个问题：上海天气怎么样？` });
  }
  counting = false;
  const items = (await table.documentClient.send(new QueryCommand({ TableName: table.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': conversationPartitionKey({ conversationId: 'bench' }) } }))).Items ?? [];
  const sizes = items.map((item) => itemSizeBytes(item));
  const traceSizes = items.map((item) => (typeof item.state === 'string' ? Buffer.byteLength(item.state) : 0));
  await table.close();
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  return {
    traces: name,
    'item, turn 2': kb(sizes[1]!),
    'item, turn 40': kb(sizes.at(-1)!),
    'item, mean': kb(sizes.reduce((sum, size) => sum + size, 0) / sizes.length),
    'state, turn 40': kb(traceSizes.at(-1)!),
    'turn 40: Queries': queries,
    'turn 40: read': kb(bytesRead),
  };
}

console.table([
  await run('off', 'trace: { enabled: false }'),
  await run('on', ''),
]);
