/**
 * The bytes of `tools` in the first model request on a catalog of 300 tools (the generated server in
 * test/fixtures/many-tools-server.ts, over stdio), for each tools.routing mode.
 * Run: node test/bench/tool-routing.ts
 */
import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { fileURLToPath } from 'node:url';
import { createAgent } from '../../lib/create-agent.ts';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { toWireTools } from '../../lib/adapters/openai/wire.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { createScriptedModel, textReply } from '../../lib/testing/scripted-model.ts';

const server = fileURLToPath(new URL('../fixtures/many-tools-server.ts', import.meta.url));
const gateway = createMcpGateway({
  servers: [{ name: 'backoffice', type: 'stdio', command: process.execPath, args: [server], env: {} }],
  settings: { connectTimeoutSeconds: 30, catalogTtlSeconds: 3_600, reconnectMaxDelaySeconds: 30, maxResultBytes: 1_048_576 },
  logger: silentLogger,
});

const rows: string[] = [];
for (const routing of ['all', 'search', 'single', 'auto']) {
  const config = parseConfig(`tools: { routing: ${routing} }`, { source: 'bench.yml', environment: {} });
  const model = createScriptedModel([textReply('ok')]);
  const agent = createAgent(config, { ownerCounters: createMemoryOwnerCounters(), model, gateway, store: createMemoryConversationStore(), logger: silentLogger });
  await agent.ask({ message: 'hi' });
  const tools = model.requests[0]!.tools;
  rows.push(`| ${routing} | ${tools.length} | ${Buffer.byteLength(JSON.stringify(toWireTools(tools))).toLocaleString('en')} B |`);
}
await gateway.close();
console.log('| tools.routing | tools offered | bytes of `tools` in the first request |\n|---|---|---|\n' + rows.join('\n'));
