/**
 * The benchmark's MCP server: one tool, `add(a, b)`, over stdio, answering at once. Built on the
 * SDK's low-level `Server`, as the demo server is, so it costs the client as little as a server can.
 * Run from source (`node add-server.ts`) or bundled (the cold start).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const ADD_TOOL = {
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: {
    type: 'object' as const,
    properties: { a: { type: 'number', description: 'the first number' }, b: { type: 'number', description: 'the second number' } },
    required: ['a', 'b'],
  },
};

const server = new Server({ name: 'bench-add', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [ADD_TOOL] }));
server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
  const { a, b } = (request.params.arguments ?? {}) as { a?: unknown; b?: unknown };
  if (typeof a !== 'number' || typeof b !== 'number') return { content: [{ type: 'text', text: 'a and b must be numbers' }], isError: true };
  return { content: [{ type: 'text', text: String(a + b) }] };
});
await server.connect(new StdioServerTransport());
// The client closing our stdin is the end of the session.
process.stdin.on('close', () => process.exit(0));
