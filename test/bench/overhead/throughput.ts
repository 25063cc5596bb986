/**
 * What the service itself adds to a turn, with the model's time taken out (the model answers
 * instantly from a script), in this process. Two set-ups:
 *   in-memory  the loop, tool validation and turn bookkeeping alone (fake tools, memory store);
 *   local      the same plus the real demo MCP server over stdio and DynamoDB's protocol (dynalite).
 * Each turn is two rounds: a tool call, then a text answer; conversations run side by side.
 * Reports latency percentiles, throughput and heap growth.
 */
import { createMemoryOwnerCounters } from '../../../lib/adapters/memory/owner-counters.ts';
import { createAgent } from '../../../lib/create-agent.ts';
import { type Agent } from '../../../lib/agent/agent-api.ts';
import { createDynamoConversationStore } from '../../../lib/adapters/dynamodb/store.ts';
import { createMcpGateway } from '../../../lib/adapters/mcp/gateway.ts';
import { createMemoryConversationStore } from '../../../lib/adapters/memory/conversation-store.ts';
import { parseConfig } from '../../../lib/config/load.ts';
import { silentLogger } from '../../../lib/core/logger.ts';
import type { ModelClient } from '../../../lib/core/ports/model.ts';
import type { ToolGateway } from '../../../lib/core/ports/tools.ts';
import { textReply, toolCallsReply } from '../../../lib/testing/scripted-model.ts';
import { testGateway } from '../../support/agent-fixture.ts';
import { startLocalTable } from '../../support/dynalite.ts';
import { DEMO_SERVER } from '../../support/lambda-environment.ts';

export interface ThroughputRow {
  setup: string;
  turns: number;
  conversations: number;
  turnsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  heapGrowthMb: number;
}

const config = parseConfig('history: { maxTokens: 4000 }', { source: 'bench.yml', environment: {} });

/** Always a tool call first, then the answer: two rounds per turn, whatever the history. */
const instantModel: ModelClient = {
  async complete(request) {
    const last = request.messages.at(-1);
    return last?.role === 'tool' ? textReply('晴') : toolCallsReply([{ id: `call_${request.messages.length}`, name: 'getWeather', arguments: { city: '上海' } }]);
  },
};

async function measure(name: string, agent: Agent, turns: number, conversations: number): Promise<ThroughputRow> {
  for (let index = 0; index < 20; index++) await agent.ask({ conversationId: `warm-${index}`, message: 'warm up' });
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const latencies: number[] = [];
  const started = performance.now();
  // Conversations run side by side; turns within one conversation one after another, as the store requires.
  await Promise.all(Array.from({ length: conversations }, async (_, conversation) => {
    for (let turn = 0; turn < turns / conversations; turn++) {
      const before = performance.now();
      await agent.ask({ conversationId: `${name}-${conversation}`, message: '上海天气?' });
      latencies.push(performance.now() - before);
    }
  }));
  const elapsed = performance.now() - started;
  global.gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  latencies.sort((a, b) => a - b);
  const at = (fraction: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * fraction))]!;
  return {
    setup: name,
    turns: latencies.length,
    conversations,
    turnsPerSecond: (latencies.length / elapsed) * 1000,
    p50Ms: at(0.5),
    p95Ms: at(0.95),
    p99Ms: at(0.99),
    heapGrowthMb: (heapAfter - heapBefore) / 1024 / 1024,
  };
}

export async function measureThroughput(): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  {
    const agent = createAgent(config, { ownerCounters: createMemoryOwnerCounters(), model: instantModel, gateway: testGateway(), store: createMemoryConversationStore(), logger: silentLogger });
    rows.push(await measure('in-memory', agent, 4000, 20));
  }
  {
    const table = await startLocalTable();
    const gateway: ToolGateway = createMcpGateway({
      servers: [{ name: 'demo', type: 'stdio', command: 'node', args: [DEMO_SERVER], env: {} }],
      settings: { connectTimeoutSeconds: 15, catalogTtlSeconds: 300, reconnectMaxDelaySeconds: 30, maxResultBytes: 1024 * 1024 },
      logger: silentLogger,
    });
    const store = createDynamoConversationStore({ client: table.dynamo, tableName: table.tableName, ttlDays: 1 });
    const agent = createAgent(config, { ownerCounters: createMemoryOwnerCounters(), model: instantModel, gateway, store, logger: silentLogger });
    rows.push(await measure('local', agent, 600, 10));
    await agent.close();
    await table.close();
  }
  return rows;
}
