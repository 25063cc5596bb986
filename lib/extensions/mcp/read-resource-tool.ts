/**
 * The built-in `read_resource` tool: the model reads the resources that tool results point at
 * (`[resource link: name <uri>]`, `[resource: uri, type]`) through resources/read, on the servers
 * whose `readResources` allows it (every URI, or URIs matching its patterns and free of `.` and `..`
 * segments: resource-uris.ts). Offered beside the MCP tools when some server allows it; read-only,
 * so it needs no approval and no round record.
 *
 * Which server: the one the model names; else the one whose tool result mentioned the URI (kept
 * in the conversation, the newest 100); else the only server that allows reads.
 */
import { dotSegmentIn, resourceUriMatcher } from '../../core/resource-uris.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ToolGateway, ToolOutput } from '../../core/ports/tools.ts';
import type { AgentExtension, TurnContext } from '../../agent/extension-api/extension.ts';

const READ_RESOURCE_TOOL = 'read_resource';

export interface ReadableServer {
  name: string;
  /** `true`: every URI; a list: URIs matching one of these patterns. */
  allowed: true | string[];
}

/** How many URIs mentioned by tool results are remembered with their server. */
const REMEMBERED_LINKS = 100;

/** `[resource link: name <uri>]` and `[resource: uri, type]`, as the MCP gateway renders them (content.ts). */
const MENTIONS = [/\[resource link: [^\n]*?<([^<>\s]+)>\]/g, /\[resource: ([^,\s\]]+), /g];

export function readResourceExtension(gateway: ToolGateway, servers: readonly ReadableServer[]): AgentExtension | undefined {
  if (servers.length === 0 || !gateway.readResource) return undefined;
  const readable = new Map(servers.map((server) => [server.name, server.allowed === true ? () => true : resourceUriMatcher(server.allowed)]));
  const names = servers.map((server) => server.name);
  const patterned = new Set(servers.filter((server) => server.allowed !== true).map((server) => server.name));
  return {
    name: 'readResource',
    tools: [
      {
        definition: {
          name: READ_RESOURCE_TOOL,
          description: describe(servers),
          parameters: {
            type: 'object',
            properties: {
              uri: { type: 'string', minLength: 1, description: 'The URI of the resource, exactly as the tool result gave it.' },
              server: { type: 'string', enum: names, description: 'The MCP server to read it from: the one whose tool gave the URI. May be left out when the URI came from a tool result.' },
            },
            required: ['uri'],
            additionalProperties: false,
          },
          annotations: { readOnlyHint: true },
        },
        async run(args, call, turn): Promise<ToolOutput> {
          const uri = String(args.uri);
          const server = typeof args.server === 'string' ? args.server : serverOf(uri, turn, names);
          if (!server) {
            return { ok: false, text: `No server is known for ${uri}: give "server", one of ${names.join(', ')} (the one whose tool gave the URI).` };
          }
          if (patterned.has(server) && dotSegmentIn(uri)) {
            return { ok: false, text: `Reading ${uri} from "${server}" is not allowed here: its path has "." or ".." segments. Use the URI exactly as the tool result gave it.` };
          }
          if (!readable.get(server)?.(uri)) {
            return { ok: false, text: `Reading ${uri} from "${server}" is not allowed here (its readResources does not cover it). Continue without it.` };
          }
          return gateway.readResource!(server, uri, { signal: call.signal, timeoutMs: call.timeoutMs });
        },
      },
    ],
    // Remembers which server a tool result's resource URIs came from.
    async aroundToolCall(call, next, turn) {
      const output = await next();
      if (call.server !== undefined && readable.has(call.server)) remember(turn, call.server, output.text);
      return output;
    },
  };
}

function describe(servers: readonly ReadableServer[]): string {
  const which = servers.map((server) => `${server.name} (${server.allowed === true ? 'any URI' : `URIs matching ${server.allowed.join(', ')}`})`).join(', ');
  return `Read a resource of an MCP server by its URI: the resource links and resources that tool results mention, written as "[resource link: name <uri>]" or "[resource: uri, type]". Returns its text; binary contents are only described. Servers: ${which}.`;
}

function serverOf(uri: string, turn: TurnContext, names: readonly string[]): string | undefined {
  const mentioned = (turn.state.links as Record<string, string> | undefined)?.[uri];
  if (mentioned !== undefined && names.includes(mentioned)) return mentioned;
  return names.length === 1 ? names[0] : undefined;
}

function remember(turn: TurnContext, server: string, text: string): void {
  const uris = MENTIONS.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]!));
  if (uris.length === 0) return;
  const links = { ...((turn.state.links as Record<string, string> | undefined) ?? {}) };
  for (const uri of uris) {
    delete links[uri];
    links[uri] = server;
  }
  // Object keys keep insertion order: the oldest mentions go first.
  const kept = Object.entries(links).slice(-REMEMBERED_LINKS);
  turn.state = { links: Object.fromEntries(kept) } as JsonObject;
}
