/**
 * DynamoDB requests per turn, counted on the wire: the project through buildAgent with the real
 * DynamoDB store on dynalite and the lean client the functions use, each request counted as it is
 * sent (as test/integration/budget-requests.test.ts counts them), for the first turn of a
 * conversation and for the next one, on each turn shape.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { buildAgent, parseConfig } from '../../../lib/index.ts';
import { silentLogger } from '../../../lib/core/logger.ts';
import { createLocalDynamo, startLocalTable } from '../../support/dynalite.ts';
import { shapeModelName, type ModelServer, type TurnShape } from './model-server.ts';
import { describeShape } from './warm.ts';

export interface DynamoRequestsRow {
  shape: string;
  turn: string;
  requests: number;
  commands: string;
}

export async function countDynamoRequests(shapes: TurnShape[], model: ModelServer): Promise<DynamoRequestsRow[]> {
  const table = await startLocalTable();
  let commands: string[] = [];
  const dynamo = createLocalDynamo(table.endpoint, { onRequest: (operation) => commands.push(operation) });
  const rows: DynamoRequestsRow[] = [];
  try {
    for (const shape of shapes) {
      const config = parseConfig(
        JSON.stringify({
          model: { name: shapeModelName(shape), baseURL: model.baseURL, apiKey: 'bench' },
          conversation: { tableName: table.tableName },
          mcpServers: { bench: { command: process.execPath, args: [path.join(import.meta.dirname, 'add-server.ts')] } },
        }),
        { source: 'bench.yml', environment: {} },
      );
      const agent = buildAgent(config, { dynamo, logger: silentLogger });
      const conversationId = `bench-${randomUUID()}`;
      for (const turn of ['first', 'second'] as const) {
        commands = [];
        const result = await agent.ask({ conversationId, message: 'Add up a few numbers.' });
        if (result.stopReason !== 'completed') throw new Error(`the turn ended ${result.stopReason}: ${result.reply}`);
        rows.push({ shape: describeShape(shape), turn: `${turn} of a conversation`, requests: commands.length, commands: tally(commands) });
      }
      await agent.close();
    }
  } finally {
    await table.close();
  }
  return rows;
}

/** `Query, PutItem, UpdateItem` with counts: `2 × UpdateItem`. */
function tally(commands: string[]): string {
  const counts = new Map<string, number>();
  for (const command of commands) counts.set(command, (counts.get(command) ?? 0) + 1);
  return [...counts].map(([command, count]) => (count === 1 ? command : `${count} × ${command}`)).join(', ');
}
