/**
 * What every message of the stateless era (2026-07-28) carries: the protocol version, the client's
 * identity and capabilities in `_meta`, and its method (and the tool, prompt or resource it names,
 * and the arguments a tool declares as headers) in headers, so a server behind a plain load balancer
 * can route it without reading the body.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities, Implementation, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { paramHeaders, type HeaderParameter } from './param-headers.ts';

export const STATELESS_PROTOCOL_VERSION = '2026-07-28';
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
/** Where a stateless server names itself, in the `_meta` of its results. */
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

export type Era = 'probing' | 'stateless' | 'stateful';

/** Decides the era of one connection; shared by the transport and its fetch. */
export class EraNegotiation {
  era: Era = 'probing';
  /** Per tool, the arguments its calls mirror in `Mcp-Param-*` headers (param-headers.ts), as last listed. */
  readonly headerParameters = new Map<string, HeaderParameter[]>();
  private readonly envelope: Record<string, unknown>;

  constructor(clientInfo: Implementation, capabilities: ClientCapabilities) {
    this.envelope = {
      [PROTOCOL_VERSION_KEY]: STATELESS_PROTOCOL_VERSION,
      [CLIENT_INFO_KEY]: clientInfo,
      [CLIENT_CAPABILITIES_KEY]: capabilities,
    };
  }

  /** A message of the stateless era: its params carry the envelope (the message's own keys win). */
  withEnvelope(message: JSONRPCMessage): JSONRPCMessage {
    if (!('method' in message)) return message;
    const params = (message.params ?? {}) as Record<string, unknown>;
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    return { ...message, params: { ...params, _meta: { ...this.envelope, ...meta } } } as JSONRPCMessage;
  }

  /**
   * The stateless era routes on headers: the protocol version (the SDK would send the 2025 one it
   * was told), the method, and the tool, prompt or resource named. In the stateful era the SDK
   * sends the version header once it is agreed, so only the initialize that agrees it is given one
   * here: the version it proposes (a POST without one is taken for 2025-03-26).
   */
  wrapFetch(fetch: FetchLike): FetchLike {
    return async (url, init) => {
      if (init?.method !== 'POST' || typeof init.body !== 'string') return fetch(url, init);
      if (this.era === 'stateful') return fetch(url, withInitializeVersion(init, init.body));
      const headers = new Headers(init.headers);
      headers.set('mcp-protocol-version', STATELESS_PROTOCOL_VERSION);
      const routed = routingOf(init.body);
      if (routed.method) headers.set('mcp-method', routed.method);
      if (routed.name) headers.set('mcp-name', routed.name);
      // The Mcp-Param-* names belong to the arguments: a configured header never stands in for one.
      for (const name of [...headers.keys()]) if (name.startsWith('mcp-param-')) headers.delete(name);
      const declared = routed.method === 'tools/call' && routed.name ? this.headerParameters.get(routed.name) : undefined;
      if (declared) for (const [name, value] of paramHeaders(declared, routed.arguments)) headers.set(name, value);
      return fetch(url, { ...init, headers });
    };
  }
}

function withInitializeVersion(init: RequestInit, body: string): RequestInit {
  // Only an initialize is parsed: the body of every other request may be large.
  if (!body.includes('"initialize"')) return init;
  const version = initializeVersionOf(body);
  const headers = new Headers(init.headers);
  if (version === undefined || headers.has('mcp-protocol-version')) return init;
  headers.set('mcp-protocol-version', version);
  return { ...init, headers };
}

function initializeVersionOf(body: string): string | undefined {
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { protocolVersion?: unknown } };
    return message.method === 'initialize' && typeof message.params?.protocolVersion === 'string' ? message.params.protocolVersion : undefined;
  } catch {
    return undefined;
  }
}

function routingOf(body: string): { method?: string; name?: string; arguments?: unknown } {
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { name?: unknown; uri?: unknown; arguments?: unknown } };
    if (typeof message.method !== 'string') return {};
    const name = message.method === 'resources/read' ? message.params?.uri : message.params?.name;
    return {
      method: message.method,
      ...(typeof name === 'string' && message.method !== 'initialize' ? { name } : {}),
      ...(message.method === 'tools/call' ? { arguments: message.params?.arguments } : {}),
    };
  } catch {
    return {};
  }
}
