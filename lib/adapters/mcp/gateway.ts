/**
 * The MCP tool gateway: every configured server behind one `ToolGateway`. Servers connect lazily
 * and in parallel on the first listTools()/status(); each keeps its own cached catalog (see
 * managed-server.ts), and a server that is down costs only its own tools.
 */
import { ConfigError, errorMessage } from '../../core/errors.ts';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject, ToolAnnotations, ToolDefinition, ToolGateway, ToolOutput, ToolServerStatus } from '../../core/ports.ts';
import { callServerTool } from './call-tool.ts';
import { ToolCallError } from './errors.ts';
import { ManagedServer } from './managed-server.ts';
import { assignToolNames } from './names.ts';
import type { McpGatewayOptions } from './types.ts';

interface ToolRoute {
  server: ManagedServer;
  originalName: string;
}

const EMPTY_SCHEMA: JsonObject = { type: 'object', properties: {} };

export function createMcpGateway(options: McpGatewayOptions): ToolGateway {
  assertDistinctServerNames(options);
  const { servers: specs, ...serverOptions } = options;
  const shutdown = new AbortController();
  const servers = specs.map((spec) => new ManagedServer(spec, { ...serverOptions, shutdown: shutdown.signal }));
  let routes = new Map<string, ToolRoute>();
  let started = false;
  let inFlight: Promise<ToolDefinition[]> | undefined;

  /** All callers during a refresh share it: one tools/list per server, however many turns ask. */
  function refresh(): Promise<ToolDefinition[]> {
    if (shutdown.signal.aborted) return Promise.reject(new Error('The MCP tool gateway is closed.'));
    started = true;
    inFlight ??= Promise.allSettled(servers.map((server) => server.refresh()))
      .then(buildCatalog)
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  }

  /** Servers in config order, tools in each server's order; names settled over the whole catalog. */
  function buildCatalog(): ToolDefinition[] {
    const assigned = assignToolNames(
      servers.map((server) => ({ server: server.spec.name, tools: server.listedTools.map((tool) => tool.name) })),
    );
    const nameOf = new Map(assigned.map((entry) => [`${entry.server}\u0000${entry.originalName}`, entry.name]));
    const nextRoutes = new Map<string, ToolRoute>();
    const definitions: ToolDefinition[] = [];
    for (const server of servers) {
      for (const tool of server.listedTools) {
        const name = nameOf.get(`${server.spec.name}\u0000${tool.name}`) ?? tool.name;
        nextRoutes.set(name, { server, originalName: tool.name });
        definitions.push({
          name,
          description: tool.description ?? '',
          parameters: (tool.inputSchema as JsonObject | undefined) ?? EMPTY_SCHEMA,
          server: server.spec.name,
          originalName: tool.name,
          ...annotationsOf(tool),
        });
      }
    }
    routes = nextRoutes;
    return definitions;
  }

  return {
    listTools: refresh,

    async status(): Promise<ToolServerStatus[]> {
      // The first call connects; later ones report without reconnecting (listTools() retries).
      if (!started) await refresh();
      else if (inFlight) await inFlight;
      return servers.map((server) => server.status());
    },

    async callTool(name, args, callOptions): Promise<ToolOutput> {
      if (!started) await refresh();
      const route = routes.get(name);
      if (!route) throw new ToolCallError('tool_unknown', `Unknown tool "${name}": no connected MCP server offers it.`);
      const session = route.server.session;
      if ('unavailable' in session) {
        // Why it is not (logged when it failed) may quote the server: not for the model's eyes.
        throw new ToolCallError(
          'tool_server_unavailable',
          `Tool "${name}" is unavailable: its MCP server "${route.server.spec.name}" is not connected (the service log has the details).`,
        );
      }
      const target = { name, server: route.server.spec.name, originalName: route.originalName };
      try {
        return await callServerTool(session.connection, target, args, callOptions);
      } catch (error) {
        if (error instanceof ToolCallError && error.code === 'tool_transport_failed') {
          await route.server.drop(session.connection, errorMessage(error.cause ?? error));
        }
        throw error;
      }
    },

    async close(): Promise<void> {
      shutdown.abort(new Error('The MCP tool gateway is closed.'));
      await inFlight?.catch(() => undefined);
      await Promise.allSettled(servers.map((server) => server.close()));
    },
  };
}

function assertDistinctServerNames(options: McpGatewayOptions): void {
  const seen = new Set<string>();
  for (const spec of options.servers) {
    if (seen.has(spec.name)) throw new ConfigError(`MCP server name "${spec.name}" is used twice; names must be unique.`);
    seen.add(spec.name);
  }
}

/** The hints tool control reads (readOnlyHint, destructiveHint), when the server gives them. */
function annotationsOf(tool: Tool): { annotations?: ToolAnnotations } {
  const hints = tool.annotations;
  if (!hints) return {};
  const annotations: ToolAnnotations = {};
  if (typeof hints.readOnlyHint === 'boolean') annotations.readOnlyHint = hints.readOnlyHint;
  if (typeof hints.destructiveHint === 'boolean') annotations.destructiveHint = hints.destructiveHint;
  return Object.keys(annotations).length > 0 ? { annotations } : {};
}
