/**
 * The demo MCP server bundled for local runs: `node lib/demo/server.ts` speaks MCP over stdio.
 * Built on the SDK's low-level `Server` so the listed JSON Schemas are exactly the ones written
 * in tools.ts (McpServer would regenerate them from zod).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEMO_TOOLS, runDemoTool } from './tools.ts';

const DEMO_SERVER_INFO = { name: 'mcp-agent-demo', version: '0.1.0' };

function createDemoServer(): Server {
  const server = new Server(DEMO_SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: DEMO_TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
    const answer = runDemoTool(request.params.name, request.params.arguments ?? {});
    return answer.ok
      ? { content: [{ type: 'text', text: JSON.stringify(answer.value) }] }
      : { content: [{ type: 'text', text: answer.error }], isError: true };
  });
  return server;
}

if (import.meta.main) {
  const server = createDemoServer();
  await server.connect(new StdioServerTransport());
  // The client closing our stdin is the end of the session.
  process.stdin.on('close', () => process.exit(0));
}
