/**
 * The MCP gateway as a client for the MCP conformance suite (@modelcontextprotocol/conformance):
 * `conformance client --command "node test/conformance/client.ts" --scenario <name>` appends the
 * scenario server's URL and sets MCP_CONFORMANCE_SCENARIO. The client connects over Streamable HTTP
 * through the gateway, lists the tools, calls each tool the scenario offers, and exits.
 *
 * auth/* scenarios go through the product's own path: an agent.yml with an `oauth` block, the
 * login command for authorization-code grants (test/conformance/oauth-operator.ts), tokens in the
 * 0600 file store, and the gateway built as buildAgent builds it. When the gateway stops because
 * only a person can go on (a scope the server asks for, a step-up; an authorization server it moved
 * to) and its log names the login command, the operator logs in once more.
 * Enterprise-managed authorization needs no login: the calls carry the user's ID token the
 * scenario gives, as a signed-in caller's request carries its bearer.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileTokenStore, TOKEN_FILE_NAME } from '../../lib/adapters/mcp/oauth/file-store.ts';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import { createConfiguredGateway } from '../../lib/configured-gateway.ts';
import { loadConfig } from '../../lib/config/load.ts';
import { CallerToken, withCallerToken } from '../../lib/core/caller-token.ts';
import { createJsonLogger } from '../../lib/core/logger.ts';
import type { ToolDefinition, ToolGateway } from '../../lib/core/ports/tools.ts';
import { login, SERVER_NAME, writeAgentConfig } from './oauth-operator.ts';

const url = process.argv.at(-1)!;
const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? '';
/** The gateway asked, in its log, for the login command (a step-up, or the server moved to another authorization server). */
let loginAsked = false;
const logger = createJsonLogger('warn', (line) => {
  if (line.includes('npm run mcp-login')) loginAsked = true;
  return process.stderr.write(line + '\n');
});

if (scenario.startsWith('auth/')) {
  process.exitCode = await runWithOAuth();
} else {
  const gateway = createMcpGateway({
    servers: [{ name: SERVER_NAME, type: 'http', url, headers: {} }],
    // Elicitation answered with the schema's defaults: what the elicitation scenarios check. The
    // suite starts all its clients at once: on a loaded two-core machine 10 s to connect was too few.
    settings: { connectTimeoutSeconds: 60, catalogTtlSeconds: 60, reconnectMaxDelaySeconds: 60, maxResultBytes: 1024 * 1024, elicitation: 'defaults' },
    logger,
  });
  await useTools(gateway);
  await gateway.close();
}

async function runWithOAuth(): Promise<number> {
  const directory = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  try {
    const { environment, grant, callerToken } = await writeAgentConfig(directory, scenario, url);
    // client_credentials and jwt-bearer need no person: the gateway gets its own tokens at its first 401.
    if (grant === 'authorization_code' && (await login(environment, scenario)) !== 0) return 1;
    const config = loadConfig({ path: environment['AGENT_CONFIG']!, environment: { ...process.env, ...environment } });
    const store = createFileTokenStore(join(environment['LOCAL_DATA_DIR']!, TOKEN_FILE_NAME));
    for (let attempt = 1; ; attempt++) {
      loginAsked = false;
      const gateway = createConfiguredGateway(config, { logger, oauthTokenStore: store });
      // enterprise-managed: the calls go as a signed-in caller's would, with the user's ID token.
      const succeeded = await withCallerToken(callerToken === undefined ? undefined : new CallerToken(callerToken), () => useTools(gateway));
      await gateway.close();
      if (succeeded) return 0;
      // The gateway names the login command when only a person can go on (a step-up, whose scope is
      // recorded for the login; a new authorization server): an operator logs in once more, not forever.
      const required = (await store.read(SERVER_NAME))?.requiredScope;
      if (attempt > 1 || grant !== 'authorization_code' || !(required || loginAsked)) return 1;
      process.stdout.write(required ? `the server asks for scope "${required}": logging in again\n` : 'the gateway asks for a login: logging in again\n');
      if ((await login(environment, scenario)) !== 0) return 1;
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** Lists the tools and calls each; true when the server connected and every call was answered. */
async function useTools(gateway: ToolGateway): Promise<boolean> {
  const tools = await gateway.listTools();
  let answered = true;
  for (const tool of tools) {
    const args = argumentsFor(tool, tools);
    try {
      const output = await gateway.callTool(tool.name, args, { signal: AbortSignal.timeout(20_000), timeoutMs: 20_000 });
      process.stdout.write(`${tool.name}(${JSON.stringify(args)}) → ${output.ok ? 'ok' : 'error'}: ${output.text.slice(0, 200)}\n`);
    } catch (error) {
      answered = false;
      process.stdout.write(`${tool.name}(${JSON.stringify(args)}) → no answer: ${(error as Error).message}\n`);
    }
  }
  const [status] = await gateway.status();
  process.stdout.write(`${status?.status}, ${tools.length} tools${status?.error ? ` (${status.error})` : ''}\n`);
  return answered && status?.status === 'connected';
}

/**
 * The arguments a scenario names for a tool (MCP_CONFORMANCE_CONTEXT's `toolCalls`: the values
 * whose headers http-custom-headers checks, nulls and non-ASCII among them); for
 * json-schema-2020-12-preservation's echo tool, the inputSchema the gateway holds for the tool it
 * names, as the scenario asks; otherwise small values for the schema's properties.
 */
function argumentsFor(tool: ToolDefinition, tools: ToolDefinition[]): Record<string, unknown> {
  const given = scenarioToolCalls().find((call) => call.name === tool.originalName);
  if (given) return given.arguments;
  if (scenario === 'json-schema-2020-12-preservation' && tool.originalName === 'json_schema_echo') {
    const focal = tools.find((candidate) => candidate.originalName === 'json_schema_2020_12_tool');
    if (focal?.inputSchema) return { schema: focal.inputSchema };
  }
  return exampleArguments(tool.parameters);
}

function scenarioToolCalls(): Array<{ name: string; arguments: Record<string, unknown> }> {
  const context = process.env['MCP_CONFORMANCE_CONTEXT'];
  if (!context) return [];
  const parsed = JSON.parse(context) as { toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }> };
  return parsed.toolCalls ?? [];
}

/** Small values for the schema's required properties: the scenarios check that a call arrives. */
function exampleArguments(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, { type?: string }>;
  return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, property.type === 'string' ? 'text' : property.type === 'boolean' ? true : 1]));
}
