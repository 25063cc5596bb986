/**
 * The MCP tool gateway: every configured server behind one `ToolGateway`. Servers connect lazily
 * and in parallel on the first listTools()/status(); each keeps its own cached catalog and heals
 * its own connection (see managed-server.ts), and a server that is down costs only its own tools.
 *
 * Names are assigned over the tools each server listed when last seen, not over the servers
 * connected at this moment: a name never changes because another server dropped out, and a call
 * to a tool of a server that is reconnecting waits for it within the call's time instead of being
 * "unknown". A server whose working session just broke keeps its tools in the catalog meanwhile.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import { dotSegmentIn, resourceUriMatcher } from '../../core/resource-uris.ts';
import type { ToolAnnotations, ToolDefinition, ToolGateway, ToolOutput, ToolServerStatus } from '../../core/ports/tools.ts';
import { callServerTool } from './call-tool.ts';
import { ToolCallError } from './errors.ts';
import { ManagedServer, ServerUnavailable } from './managed-server.ts';
import { assignToolNames } from './names.ts';
import { readServerResource } from './read-resource.ts';
import { isSessionExpired } from '#mcp-remote';
import type { McpGatewayOptions } from './types.ts';

interface ToolRoute {
  server: ManagedServer;
  originalName: string;
}

/**
 * A call waits for a server that is reconnecting within its own time, less a reserve so that it
 * answers "unavailable" itself rather than being cut off by its timeout.
 */
function reconnectWaitMs(timeoutMs: number): number {
  return Math.max(0, timeoutMs - Math.min(2_000, timeoutMs * 0.2));
}

export function createMcpGateway(options: McpGatewayOptions): ToolGateway {
  assertDistinctServerNames(options);
  const { servers: specs, ...serverOptions } = options;
  const shutdown = new AbortController();
  const servers = specs.map((spec) => new ManagedServer(spec, { ...serverOptions, shutdown: shutdown.signal }));
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

  /** The model-facing name of every tool any server listed when last seen; settled again only when a listing changed. */
  let settled: { listings: string[][]; routes: Map<string, ToolRoute> } | undefined;
  function routes(): Map<string, ToolRoute> {
    const listings = servers.map((server) => server.knownToolNames);
    if (settled && listings.every((names, index) => names === settled!.listings[index])) return settled.routes;
    const assigned = assignToolNames(servers.map((server, index) => ({ server: server.spec.name, tools: listings[index]! })));
    const byServer = new Map(servers.map((server) => [server.spec.name, server]));
    settled = {
      listings,
      routes: new Map(assigned.map((entry) => [entry.name, { server: byServer.get(entry.server)!, originalName: entry.originalName }])),
    };
    return settled.routes;
  }

  /** Servers in config order, tools in each server's order; servers connected now, or reconnecting after a break. */
  function buildCatalog(): ToolDefinition[] {
    const nameOf = new Map([...routes()].map(([name, route]) => [`${route.server.spec.name}\u0000${route.originalName}`, name]));
    const definitions: ToolDefinition[] = [];
    for (const server of servers) {
      for (const { tool, parameters } of server.listedTools) {
        definitions.push({
          name: nameOf.get(`${server.spec.name}\u0000${tool.name}`) ?? tool.name,
          description: tool.description ?? '',
          parameters,
          inputSchema: tool.inputSchema as JsonObject,
          server: server.spec.name,
          originalName: tool.name,
          ...annotationsOf(tool),
        });
      }
    }
    return definitions;
  }

  function serverNamed(name: string): ManagedServer {
    const server = servers.find((candidate) => candidate.spec.name === name);
    if (!server) throw new ToolCallError('tool_unknown', `There is no MCP server named "${name}".`);
    return server;
  }

  return {
    listTools: refresh,

    async status(): Promise<ToolServerStatus[]> {
      // The first call connects; later ones check each server (pinged, cached a few seconds).
      if (!started) await refresh();
      else if (inFlight) await inFlight;
      await Promise.allSettled(servers.map((server) => server.checkHealth()));
      return servers.map((server) => server.status());
    },

    async callTool(name, args, callOptions): Promise<ToolOutput> {
      if (!started) await refresh();
      const route = routes().get(name);
      if (!route) throw new ToolCallError('tool_unknown', `Unknown tool "${name}": no connected MCP server offers it.`);
      const server = route.server;
      const waitMs = reconnectWaitMs(callOptions.timeoutMs);
      const call = { name, originalName: route.originalName, ...(callOptions.caller ? { caller: callOptions.caller } : {}) };
      try {
        // A server called on the caller's behalf gets this caller's token first: a missing or refused one is the call's answer.
        await onBehalfOf(server)?.ready();
        return await server.run(async (connection) => {
          const listed = server.listedTools.find((entry) => entry.tool.name === route.originalName);
          if (!listed) throw new ToolCallError('tool_unknown', `Unknown tool "${name}": its MCP server "${server.spec.name}" no longer lists it.`);
          const target = { name, server: server.spec.name, originalName: route.originalName, requiresTask: listed.requiresTask };
          try {
            return await callServerTool(connection, target, args, callOptions);
          } catch (error) {
            if (error instanceof ToolCallError && error.code === 'tool_transport_failed') await server.drop(connection, error.message);
            throw error;
          }
        }, waitMs, call);
      } catch (error) {
        throw asToolCallError(error, name, server.spec.name);
      }
    },

    async readResource(serverName, uri, readOptions): Promise<ToolOutput> {
      if (!started) await refresh();
      const server = serverNamed(serverName);
      const allowed = server.spec.readResources;
      if (allowed === undefined || allowed === false) {
        throw new ToolCallError('resource_not_allowed', `Reading resources of the MCP server "${serverName}" is not allowed (readResources is off).`);
      }
      // A pattern matches text: `reports/*` would match `reports/../secrets` (resource-uris.ts).
      if (Array.isArray(allowed) && dotSegmentIn(uri)) {
        throw new ToolCallError('resource_not_allowed', `Reading ${uri} of the MCP server "${serverName}" is not allowed: its path has "." or ".." segments.`);
      }
      if (Array.isArray(allowed) && !resourceUriMatcher(allowed)(uri)) {
        throw new ToolCallError('resource_not_allowed', `Reading ${uri} of the MCP server "${serverName}" is not allowed: its readResources lists ${allowed.join(', ')}.`);
      }
      try {
        await onBehalfOf(server)?.ready();
        return await server.run(
          (connection) => readServerResource(connection, { server: serverName, uri }, readOptions),
          reconnectWaitMs(readOptions.timeoutMs),
        );
      } catch (error) {
        throw asToolCallError(error, `resources/read ${uri}`, serverName);
      }
    },

    async close(): Promise<void> {
      shutdown.abort(new Error('The MCP tool gateway is closed.'));
      await inFlight?.catch(() => undefined);
      await Promise.allSettled(servers.map((server) => server.close()));
    },
  };
}

/** Whatever ended a call without an answer, worded for the model. */
function asToolCallError(error: unknown, name: string, server: string): unknown {
  if (error instanceof ServerUnavailable) {
    // Why it is not (a refusal's body may quote a token) is logged, never told to the model.
    return new ToolCallError('tool_server_unavailable', `Tool "${name}" did not run: its MCP server "${server}" is unavailable (not connected, and it did not come back within the call's time; the service log has the details). Try again later, or go on without it.`, { cause: error });
  }
  if (isSessionExpired(error)) {
    return new ToolCallError('tool_transport_failed', `Tool "${name}" got no answer: the MCP server "${server}" refused its new session too.`, { cause: error });
  }
  return error;
}

const onBehalfOf = (server: ManagedServer) => ('onBehalfOf' in server.spec ? server.spec.onBehalfOf : undefined);

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
