/**
 * The MCP gateway as a client for the MCP conformance suite (@modelcontextprotocol/conformance):
 * `conformance client --command "node test/conformance/client.ts" --scenario <name>` appends the
 * scenario server's URL and sets MCP_CONFORMANCE_SCENARIO. The client connects over Streamable HTTP
 * through createMcpGateway, lists the tools, calls each tool the scenario offers, and exits.
 */
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import { createJsonLogger } from '../../lib/core/logger.ts';

const url = process.argv.at(-1)!;
const gateway = createMcpGateway({
  servers: [{ name: 'conformance', type: 'http', url, headers: {} }],
  // Elicitation answered with the schema's defaults: what the elicitation scenarios check.
  settings: { connectTimeoutSeconds: 10, catalogTtlSeconds: 60, reconnectMaxDelaySeconds: 60, maxResultBytes: 1024 * 1024, elicitation: 'defaults' },
  logger: createJsonLogger('warn'),
});
const tools = await gateway.listTools();
for (const tool of tools) {
  const args = exampleArguments(tool.parameters);
  const output = await gateway.callTool(tool.name, args, { signal: AbortSignal.timeout(20_000), timeoutMs: 20_000 });
  process.stdout.write(`${tool.name}(${JSON.stringify(args)}) → ${output.ok ? 'ok' : 'error'}: ${output.text.slice(0, 200)}\n`);
}
const [status] = await gateway.status();
process.stdout.write(`${status?.status}, ${tools.length} tools\n`);
await gateway.close();

/** Small values for the schema's required properties: the scenarios check that a call arrives. */
function exampleArguments(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, { type?: string }>;
  return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, property.type === 'string' ? 'text' : property.type === 'boolean' ? true : 1]));
}
