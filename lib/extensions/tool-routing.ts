import type { ToolCall } from '../core/messages.ts';
import type { JsonObject } from '../core/json.ts';
import type { ToolDefinition } from '../core/ports/tools.ts';
import type { AgentExtension, TurnContext } from '../agent/extension-api/extension.ts';
import { searchBm25 } from '../core/bm25.ts';

/**
 * Large tool catalogs (agent.yml `tools.routing`). Model APIs take a bounded list of tools (OpenAI:
 * 128), and every tool's schema costs tokens on every round, so past `tools.maxOffered` the model is
 * offered a way to the tools instead of the tools themselves:
 *
 *   all     every tool, every round
 *   search  a built-in search_tools(query) over the catalog (BM25 over names, descriptions and
 *           argument names), plus the tools found so far in the conversation
 *   single  one built-in mcp_query({server, tool, arguments}) in the manner of mcphost, its
 *           description listing every server's tools briefly; each call is planned as the real
 *           tool's (its schema, policy, approval and limits), and answered as the model's call
 *   auto    all while the catalog has at most tools.maxOffered tools, search above
 *
 * Only MCP tools are routed: other built-in tools (write_todos) stay offered as they are.
 */

type RoutingMode = 'auto' | 'all' | 'search' | 'single';

interface RoutingSettings {
  routing: RoutingMode;
  maxOffered: number;
}

const SEARCH_TOOL = 'search_tools';
const QUERY_TOOL = 'mcp_query';
/** Tools found by searches that a conversation keeps offering, newest first. */
const MAX_FOUND = 32;
const DEFAULT_HITS = 5;

export function toolRoutingExtension(settings: RoutingSettings): AgentExtension | undefined {
  if (settings.routing === 'all') return undefined;
  const modeOf = (turn: TurnContext): 'all' | 'search' | 'single' => {
    if (settings.routing !== 'auto') return settings.routing;
    return mcpTools(turn.tools).length <= settings.maxOffered ? 'all' : 'search';
  };
  const tools = [];
  if (settings.routing === 'auto' || settings.routing === 'search') tools.push(searchTool());
  if (settings.routing === 'single') tools.push(queryTool());
  return {
    name: 'toolRouting',
    tools,
    beforeModelCall(request, turn) {
      const mode = modeOf(turn);
      const builtins = request.tools.filter((tool) => tool.server === undefined && tool.name !== SEARCH_TOOL && tool.name !== QUERY_TOOL);
      if (mode === 'all') return { ...request, tools: [...mcpTools(request.tools), ...builtins] };
      // A routing tool the tool policy does not offer (toolPolicy) is left out, as any tool is.
      if (mode === 'single') return { ...request, tools: [...builtins, ...(turn.tools.some((tool) => tool.name === QUERY_TOOL) ? [describedQueryTool(turn.tools)] : [])] };
      const found = new Set(foundOf(turn.state));
      const search = turn.tools.find((tool) => tool.name === SEARCH_TOOL);
      return { ...request, tools: [...builtins, ...(search ? [{ ...search, description: searchDescription(mcpTools(turn.tools).length) }] : []), ...mcpTools(request.tools).filter((tool) => found.has(tool.name))] };
    },
    routeToolCall(call, turn) {
      if (call.name !== QUERY_TOOL) return undefined;
      const target = resolveQuery(call, turn.tools);
      return target && { ...call, name: target.tool.name, arguments: JSON.stringify(target.arguments) };
    },
  };
}

const mcpTools = (tools: readonly ToolDefinition[]) => tools.filter((tool) => tool.server !== undefined);
const foundOf = (state: JsonObject): string[] => (Array.isArray(state.found) ? (state.found as string[]) : []);
const argumentNames = (tool: ToolDefinition) => Object.keys((tool.parameters.properties as JsonObject | undefined) ?? {});
const searchable = (tool: ToolDefinition) => `${tool.name} ${tool.originalName ?? ''} ${tool.server ?? ''} ${tool.description} ${argumentNames(tool).join(' ')}`;

function searchDescription(size: number): string {
  return `Search the catalog of ${size} tools by what you need to do (a few keywords, in any language). The best matches are listed with their descriptions and become available to call from your next step; search again for other needs.`;
}

function searchTool() {
  return {
    definition: {
      name: SEARCH_TOOL,
      description: searchDescription(0),
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, description: 'What the tool should do.' },
          limit: { type: 'integer', minimum: 1, maximum: 20, description: `How many matches to list (default ${DEFAULT_HITS}).` },
        },
        required: ['query'],
      },
      annotations: { readOnlyHint: true },
    },
    run(args: JsonObject, _call: unknown, turn: TurnContext) {
      const hits = searchBm25(mcpTools(turn.tools), searchable, String(args.query), Number(args.limit ?? DEFAULT_HITS));
      if (hits.length === 0) return { ok: true, text: `No tool matches "${String(args.query)}". Try other words, or fewer.` };
      const names = hits.map((hit) => hit.item.name);
      turn.state = { found: [...names, ...foundOf(turn.state).filter((name) => !names.includes(name))].slice(0, MAX_FOUND) };
      const lines = hits.map(({ item }) => `- ${item.name}(${argumentNames(item).join(', ')}) [${item.server}]: ${item.description}`);
      return { ok: true, text: `Tools you can call from your next step:\n${lines.join('\n')}` };
    },
  };
}

function queryTool() {
  return {
    definition: {
      name: QUERY_TOOL,
      description: 'Calls a tool of an MCP server.',
      parameters: {
        type: 'object',
        properties: {
          server: { type: 'string', description: 'The server, as listed in this description.' },
          tool: { type: 'string', description: 'The tool, as listed under its server.' },
          arguments: { type: 'object', description: "The tool's arguments, by name." },
        },
        required: ['server', 'tool'],
      },
    },
    // Reached only when the call names no tool of the catalog: a routed call runs the real tool.
    run(args: JsonObject, _call: unknown, turn: TurnContext) {
      return { ok: false, text: unknownTarget(String(args.server ?? ''), String(args.tool ?? ''), turn.tools) };
    },
  };
}

/** mcp_query's description: each server with its tools and their argument names, one line a server. */
function describedQueryTool(catalog: readonly ToolDefinition[]): ToolDefinition {
  const base = queryTool().definition;
  const servers = new Map<string, string[]>();
  for (const tool of mcpTools(catalog)) {
    const entries = servers.get(tool.server!) ?? [];
    entries.push(`${tool.originalName ?? tool.name}(${argumentNames(tool).join(', ')})`);
    servers.set(tool.server!, entries);
  }
  const listing = [...servers].map(([server, entries]) => `- ${server}: ${entries.join('; ')}`).join('\n');
  return { ...base, description: `Calls a tool of an MCP server: give the server, the tool and its arguments. Servers and their tools (arguments in brackets):\n${listing}` };
}

function resolveQuery(call: ToolCall, catalog: readonly ToolDefinition[]): { tool: ToolDefinition; arguments: unknown } | undefined {
  let args: { server?: unknown; tool?: unknown; arguments?: unknown };
  try {
    args = JSON.parse(call.arguments) as typeof args;
  } catch {
    return undefined;
  }
  const tool = mcpTools(catalog).find((candidate) => candidate.server === args.server && (candidate.originalName === args.tool || candidate.name === args.tool));
  return tool && { tool, arguments: args.arguments ?? {} };
}

function unknownTarget(server: string, tool: string, catalog: readonly ToolDefinition[]): string {
  const candidates = mcpTools(catalog);
  const onServer = candidates.filter((candidate) => candidate.server === server);
  const close = searchBm25(onServer.length > 0 ? onServer : candidates, searchable, `${tool} ${server}`, 5).map((hit) => `${hit.item.server}/${hit.item.originalName ?? hit.item.name}`);
  const servers = [...new Set(candidates.map((candidate) => candidate.server))].join(', ');
  const where = onServer.length > 0 ? `server "${server}" has no tool "${tool}"` : `there is no server "${server}" (servers: ${servers})`;
  return `Error: ${where}. ${close.length > 0 ? `Close matches: ${close.join(', ')}.` : 'No tool comes close.'} Call mcp_query again with a listed server and tool.`;
}
