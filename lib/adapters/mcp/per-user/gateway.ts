/**
 * The tool gateway with per-user servers (auth.mode: per-user) beside the others: their calls go
 * out as the calling owner (ToolCallOptions.caller.owner), with that owner's token, over a session
 * of that owner's own (kept a few minutes, so a turn's calls share it); every other tool goes to
 * the gateway it wraps, unchanged.
 *
 * The catalog. tools/list needs a token too, and listTools() is asked for no one in particular.
 * Tool definitions are the server's, not a user's, so a per-user server offers the tools it listed
 * last, for whichever owner (listed again with each new session of an owner, and at each new
 * connection, and kept in the store so a new process has them). Each per-user server also offers
 * `connect_<server>`, which connects the owner's account (or says it is connected): before anyone
 * ever connected it is the server's only tool, and so the model can always reach the pause.
 *
 * A call for an owner without a connection (or whose refresh the provider refused) throws
 * ConnectionRequired with a new authorization URL: the turn pauses (lib/extensions/mcp/connect-on-call.ts).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { errorMessage } from '../../../core/errors.ts';
import type { Logger } from '../../../core/logger.ts';
import type { ToolDefinition, ToolGateway, ToolOutput } from '../../../core/ports/tools.ts';
import { ConnectionRequired } from '../../../core/ports/user-connections.ts';
import type { JsonObject } from '../../../core/json.ts';
import { callServerTool } from '../call-tool.ts';
import { connectServer, type ServerConnection } from '../connect.ts';
import { ToolCallError } from '../errors.ts';
import { judgeTools, listAllTools, type ListedTool } from '../list-tools.ts';
import { assignToolNames } from '../names.ts';
import type { ConnectionStore } from './connection-store.ts';
import type { UserConnections } from './connections.ts';

/** An owner's session is closed after this long unused. */
const SESSION_IDLE_MS = 5 * 60_000;

interface PerUserGatewayOptions {
  inner: ToolGateway;
  /** Their headers go with every request (never an Authorization header: the schema refuses one). */
  servers: ReadonlyArray<PerUserEndpoint>;
  connections: UserConnections;
  store: ConnectionStore;
  logger: Logger;
  settings: { connectTimeoutSeconds: number; maxResultBytes: number };
}

interface PerUserEndpoint {
  name: string;
  url: string;
  headers: Record<string, string>;
}

interface OwnerSession {
  connection: Promise<ServerConnection>;
  /** The token the session sends; replaced when renewed. */
  token: { current: string; lost: boolean };
  lastUsed: number;
}

interface Route {
  server: string;
  /** undefined: the server's connect tool. */
  tool: ListedTool | undefined;
}

export interface PerUserGateway extends ToolGateway {
  /** A connection was just made: list the server's tools with it (UserConnections' onConnected). */
  listWith(owner: string | undefined, server: string): Promise<void>;
}

export function withPerUserServers(options: PerUserGatewayOptions): PerUserGateway {
  const { inner, connections, store, logger, settings } = options;
  const sessions = new Map<string, OwnerSession>();
  const catalogs = new Map<string, ListedTool[]>();
  let loaded: Promise<void> | undefined;
  let routes = new Map<string, Route>();

  const sessionKey = (owner: string | undefined, server: string) => JSON.stringify([owner ?? null, server]);
  const forget = (key: string, session: OwnerSession) => {
    if (sessions.get(key) === session) sessions.delete(key);
  };

  /** The catalogs kept in the store, once per process (a new process has them before anyone calls). */
  function loadCatalogs(): Promise<void> {
    loaded ??= Promise.all(options.servers.map(async (server) => {
      if (catalogs.has(server.name)) return;
      const stored = await store.readCatalog(server.name);
      if (stored) catalogs.set(server.name, judgeTools(JSON.parse(stored.tools) as unknown[], false).tools);
    })).then(() => undefined, (error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  }

  async function remember(server: string, listed: ListedTool[]): Promise<void> {
    catalogs.set(server, listed);
    await store.writeCatalog({ server, tools: JSON.stringify(listed.map((entry) => entry.tool)), listedAt: new Date().toISOString() });
  }

  /** The connection required for this owner: a new authorization URL, and the words the user reads. */
  async function connectionRequired(owner: string | undefined, server: string): Promise<ConnectionRequired> {
    const url = await connections.startConnection(owner, server);
    return new ConnectionRequired(server, url, `Connect your ${server} account to continue: open the link, sign in and allow access, then come back and accept.`);
  }

  async function openSession(owner: string | undefined, server: PerUserEndpoint, token: string): Promise<OwnerSession> {
    const holder = { current: token, lost: false };
    const authorization = {
      forTransport: (fetch: FetchLike) => ({ fetch: bearerFetch(fetch, holder, (used) => connections.afterUnauthorized(owner, server.name, used)) }),
    };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`connecting took longer than ${settings.connectTimeoutSeconds} s`)), settings.connectTimeoutSeconds * 1000);
    const session: OwnerSession = {
      token: holder,
      lastUsed: Date.now(),
      connection: connectServer(
        { name: server.name, type: 'http', url: server.url, headers: server.headers, authorization },
        {
          signal: controller.signal,
          logger,
          maxResultBytes: settings.maxResultBytes,
          onToolsChanged: () => undefined,
          // Only this session: a newer one of the same owner may have taken its place.
          onClosed: () => forget(sessionKey(owner, server.name), session),
          // A per-user server is asked nothing of the user while a call runs (left out: docs/users-own-accounts.md).
          capabilities: {},
          answers: {},
        },
      ).then(async (connection) => {
        // Each new session lists the tools: the catalog stays as fresh as the users' sessions.
        const listing = await listAllTools(connection.client, { signal: controller.signal, timeoutMs: settings.connectTimeoutSeconds * 1000, tasksSupported: false });
        await remember(server.name, listing.tools);
        return connection;
      }).finally(() => clearTimeout(timer)),
    };
    session.connection.catch(() => forget(sessionKey(owner, server.name), session));
    return session;
  }

  /** The owner's session with a valid token, or ConnectionRequired. */
  async function sessionFor(owner: string | undefined, server: PerUserEndpoint): Promise<OwnerSession> {
    closeIdle();
    const token = await connections.accessToken(owner, server.name);
    const key = sessionKey(owner, server.name);
    if (token === undefined) {
      const stale = sessions.get(key);
      sessions.delete(key);
      void stale?.connection.then((connection) => connection.close(), () => undefined);
      throw await connectionRequired(owner, server.name);
    }
    let session = sessions.get(key);
    if (!session) {
      session = await openSession(owner, server, token);
      sessions.set(key, session);
    }
    session.token.current = token;
    session.token.lost = false;
    session.lastUsed = Date.now();
    return session;
  }

  function closeIdle(): void {
    const now = Date.now();
    for (const [key, session] of sessions) {
      if (now - session.lastUsed < SESSION_IDLE_MS) continue;
      sessions.delete(key);
      void session.connection.then((connection) => connection.close(), () => undefined);
    }
  }

  function serverNamed(name: string): PerUserEndpoint {
    return options.servers.find((server) => server.name === name)!;
  }

  async function callPerUser(route: Route, name: string, args: JsonObject, callOptions: Parameters<ToolGateway['callTool']>[2]): Promise<ToolOutput> {
    const owner = callOptions.caller?.owner;
    const server = serverNamed(route.server);
    let session: OwnerSession | undefined;
    try {
      session = await sessionFor(owner, server);
      await session.connection;
    } catch (error) {
      if (error instanceof ConnectionRequired) throw error;
      // The server refused the token while the session opened, and no renewal helped.
      if (session?.token.lost) throw await connectionRequired(owner, server.name);
      throw new ToolCallError('tool_server_unavailable', `Tool "${name}" did not run: the MCP server "${server.name}" is unavailable for this user (${errorMessage(error)}). Try again later.`, { cause: error });
    }
    if (route.tool === undefined) {
      const tools = (catalogs.get(server.name) ?? []).map((entry) => entry.tool.name);
      return { ok: true, text: `The user's ${server.name} account is connected. Its tools: ${tools.join(', ') || '(none)'}.` };
    }
    const connection = await session.connection;
    try {
      return await callServerTool(connection, { name, server: server.name, originalName: route.tool.tool.name, requiresTask: false }, args, callOptions);
    } catch (error) {
      // The server refused the token and no renewal helped: the owner connects again.
      if (session.token.lost) {
        forget(sessionKey(owner, server.name), session);
        void connection.close();
        throw await connectionRequired(owner, server.name);
      }
      throw error;
    }
  }

  function buildCatalog(innerTools: ToolDefinition[]): ToolDefinition[] {
    const taken = new Set(innerTools.map((tool) => tool.name));
    const assigned = assignToolNames(options.servers.map((server) => ({ server: server.name, tools: (catalogs.get(server.name) ?? []).map((entry) => entry.tool.name) })));
    const next = new Map<string, Route>();
    const definitions: ToolDefinition[] = [];
    const add = (definition: ToolDefinition, route: Route) => {
      let name = definition.name;
      if (taken.has(name)) name = safeName(`${route.server}__${name}`);
      taken.add(name);
      next.set(name, route);
      definitions.push({ ...definition, name });
    };
    for (const server of options.servers) {
      add({
        name: safeName(`connect_${server.name}`),
        description: `Connects the user's own ${server.name} account (they sign in on a page), or says that it is connected and which tools it has. Call it when the user asks to connect, or when no other tool of ${server.name} is offered yet.`,
        parameters: { type: 'object', properties: {}, additionalProperties: false },
        server: server.name,
        originalName: `connect_${server.name}`,
      }, { server: server.name, tool: undefined });
      for (const listed of catalogs.get(server.name) ?? []) {
        const modelName = assigned.find((entry) => entry.server === server.name && entry.originalName === listed.tool.name)?.name ?? listed.tool.name;
        add({
          name: modelName,
          description: listed.tool.description ?? '',
          parameters: listed.parameters,
          server: server.name,
          originalName: listed.tool.name,
          ...annotationsOf(listed.tool),
        }, { server: server.name, tool: listed });
      }
    }
    routes = next;
    return definitions;
  }

  async function listTools(): Promise<ToolDefinition[]> {
    const [innerTools] = await Promise.all([inner.listTools(), loadCatalogs().catch((error: unknown) => logger.warn('per-user tool catalogs not read', { error: errorMessage(error) }))]);
    return [...innerTools, ...buildCatalog(innerTools)];
  }

  return {
    listTools,

    async callTool(name, args, callOptions) {
      let route = routes.get(name);
      if (!route) {
        // A process that has not listed yet (a resumed turn in a new process): list, then look again.
        await listTools();
        route = routes.get(name);
      }
      if (!route) return inner.callTool(name, args, callOptions);
      return callPerUser(route, name, args, callOptions);
    },

    ...(inner.readResource ? { readResource: inner.readResource.bind(inner) } : {}),

    async status() {
      await loadCatalogs().catch(() => undefined);
      const statuses = await inner.status();
      return [
        ...statuses,
        ...options.servers.map((server) => ({ name: server.name, transport: 'http' as const, status: 'connected' as const, toolCount: catalogs.get(server.name)?.length ?? 0 })),
      ];
    },

    async listWith(owner, server) {
      const named = serverNamed(server);
      const session = await sessionFor(owner, named);
      await session.connection;
    },

    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map(async (session) => (await session.connection).close()));
      await inner.close();
    },
  };
}

/**
 * Sends the owner's token; on a 401, asks for a newer or renewed one and sends the request once
 * more. When there is none, the 401 stands and the session is marked lost: the call then pauses
 * for the owner to connect again.
 */
function bearerFetch(fetch: FetchLike, token: { current: string; lost: boolean }, renew: (used: string) => Promise<string | undefined>): FetchLike {
  return async (input, init) => {
    const send = (value: string) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${value}`);
      return fetch(input, { ...init, headers });
    };
    const used = token.current;
    const response = await send(used);
    if (response.status !== 401) return response;
    const renewed = await renew(used).catch(() => undefined);
    if (renewed === undefined) {
      token.lost = true;
      return response;
    }
    await response.body?.cancel().catch(() => undefined);
    token.current = renewed;
    return send(renewed);
  };
}

function safeName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
}

function annotationsOf(tool: Tool): Pick<ToolDefinition, 'annotations'> {
  const hints = tool.annotations;
  if (!hints) return {};
  const annotations: NonNullable<ToolDefinition['annotations']> = {};
  if (typeof hints.readOnlyHint === 'boolean') annotations.readOnlyHint = hints.readOnlyHint;
  if (typeof hints.destructiveHint === 'boolean') annotations.destructiveHint = hints.destructiveHint;
  return Object.keys(annotations).length > 0 ? { annotations } : {};
}
