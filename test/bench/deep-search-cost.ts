/**
 * `node test/bench/deep-search-cost.ts`: what one deep_search call costs, in model calls (rounds),
 * tool calls to the search server, and the tokens each of its model calls sends (estimated as the
 * service estimates history, lib/core/history.ts), through the real agent (createAgent, the loop,
 * the extensions) and a real MCP client against the search fixture (test/fixtures/search-mcp.ts),
 * with a scripted model that always asks for five sub-queries. The table in docs/deep-search.md is
 * this script's output.
 */
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { estimateTokens } from '../../lib/core/history.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { SUMMARY_PROMPT } from '../../lib/extensions/deep-search/prompts.ts';
import { createScriptedModel, textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import { createSearchServer } from '../fixtures/search-mcp.ts';
import { gatewayOptions } from '../support/mcp-servers.ts';

const QUESTION = 'Is a heat pump worth it?';
const PLAN = JSON.stringify({ queries: ['how heat pumps work', 'heat pump running costs', 'heat pump sales europe', 'insulation', 'coefficient of performance'] });

async function measure(name: string, settings: string) {
  const calls: Array<{ tool: string }> = [];
  const gateway = createMcpGateway(gatewayOptions([{ name: 'web', type: 'in-memory', connect: (transport) => createSearchServer(calls as never).connect(transport) }]));
  const model = createScriptedModel([
    toolCallsReply([{ id: 'deep_1', name: 'deep_search', arguments: { query: QUESTION } }]),
    textReply(PLAN),
    textReply('A heat pump gives about three units of heat per unit of electricity [1] and costs about as much to run as gas [2].'),
    textReply('Yes, often.'),
  ]);
  const yaml = `mcpServers:\n  web: { command: node, args: [x.ts] }\ndeepSearch: { server: web, tool: search, ${settings} }\nmodel: { maxRetries: 0 }`;
  const agent = createAgent(parseConfig(yaml, { source: 'bench.yml', environment: {} }), { ownerCounters: createMemoryOwnerCounters(), model, gateway, store: createMemoryConversationStore(), logger: silentLogger });
  const started = performance.now();
  const result = await agent.ask({ conversationId: 'bench', message: QUESTION });
  const elapsed = performance.now() - started;
  await gateway.close();
  const summaryCall = model.requests.find((request) => request.messages[0]?.content === SUMMARY_PROMPT);
  const answer = model.requests.at(-1)!.messages.at(-1)!;
  return {
    settings: name,
    // The turn's own two calls (the one that calls deep_search, the answer) apart.
    'deep_search model calls': model.requests.length - 2,
    'turn rounds': result.rounds,
    'search calls': calls.filter((call) => call.tool === 'search').length,
    'read calls': calls.filter((call) => call.tool === 'fetch').length,
    'planning call tokens (est.)': estimateTokens(model.requests[1]!.messages),
    'summary call tokens (est.)': summaryCall ? estimateTokens(summaryCall.messages) : 0,
    'tool result chars': answer.content?.length ?? 0,
    'turn ms': Math.round(elapsed),
  };
}

const rows = [
  await measure('defaults (3 sub-queries, 5 results, 3 reads)', 'readTool: fetch'),
  await measure('snippets only (no readTool)', ''),
  await measure('maxSubQueries 1, maxReads 1', 'readTool: fetch, maxSubQueries: 1, maxReads: 1'),
  await measure('maxSubQueries 5, maxResults 2, maxReads 5', 'readTool: fetch, maxSubQueries: 5, maxResults: 2, maxReads: 5'),
];
console.table(rows);
