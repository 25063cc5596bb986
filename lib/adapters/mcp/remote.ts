/**
 * What the gateway needs only for servers reached over HTTP: their transports (Streamable HTTP,
 * which negotiates the protocol era per server, and legacy HTTP+SSE), and the stateless era's
 * `x-mcp-header` declarations. Imported as `#mcp-remote` (package.json "imports"): the
 * Lambda bundles of an agent.yml whose MCP servers are all local (stdio) carry a stand-in instead,
 * about 32 KB smaller (functions/substitutes/without-mcp-remote.ts, infra/bundling.ts). The errors
 * only these transports raise are recognised here too, so that such a bundle neither carries nor
 * evaluates the SDK's Streamable HTTP transport and OAuth client (about 6 ms of a cold start) for
 * an `instanceof`.
 */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities, Implementation } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../core/logger.ts';
import { createBoundedFetch } from './bounded/fetch.ts';
import { EraNegotiation, STATELESS_PROTOCOL_VERSION } from './stateless/envelope.ts';
import { NegotiatingTransport } from './stateless/negotiating-transport.ts';
import type { HeaderParameter } from './stateless/param-headers.ts';
import { withTraceHeaders } from './trace-headers.ts';
import type { McpServerSpec } from './types.ts';

export { headerParametersOf } from './stateless/param-headers.ts';
export { isSessionExpired } from './session-expired.ts';

/** The SDK's OAuth client gave up: the server wants a login or refused the tokens (a remote server's transport only). */
export function isUnauthorized(error: unknown): boolean {
  return error instanceof UnauthorizedError;
}

type RemoteSpec = Extract<McpServerSpec, { url: string }>;

interface RemoteOptions {
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  logger: Logger;
  maxResultBytes: number;
  /** The time to connect and list the tools: half of it is for server/discover to be answered. */
  connectTimeoutMs: number;
  /** A stream that owes answers ended for good (bounded/fetch.ts). */
  onLost(reason: string): void;
}

export function createRemoteTransport(spec: RemoteSpec, kind: 'http' | 'sse', options: RemoteOptions): Transport {
  const requestInit = { headers: spec.headers };
  const url = new URL(spec.url);
  // Every response body the transport reads messages from is bounded as it arrives.
  const bounded = createBoundedFetch({ maxResultBytes: options.maxResultBytes, server: spec.name, logger: options.logger, legacySse: kind === 'sse', onLost: options.onLost });
  // OAuth 2.1 (lib/adapters/mcp/oauth/): the server's token provider, and the fetch that watches its challenges.
  // Or the caller's own identity: each request carries the token exchanged for its caller (oauth/on-behalf-of.ts).
  const oauth = spec.authorization?.forTransport(bounded) ?? { fetch: spec.onBehalfOf?.wrapFetch(bounded) ?? bounded };
  if (kind === 'sse') return new SSEClientTransport(url, { requestInit, ...oauth, fetch: withTraceHeaders(oauth.fetch) });
  // Streamable HTTP speaks either era; which one is settled by the first request (stateless/).
  const negotiation = new EraNegotiation(options.clientInfo, options.capabilities);
  return new NegotiatingTransport(new StreamableHTTPClientTransport(url, { requestInit, ...oauth, fetch: negotiation.wrapFetch(withTraceHeaders(oauth.fetch)) }), negotiation, options.connectTimeoutMs / 2);
}

/** The stateless era's revision and header declarations, once a transport has connected in it. */
export function statelessEra(transport: Transport): { protocolVersion: string; headerParameters: Map<string, HeaderParameter[]> } | undefined {
  if (!(transport instanceof NegotiatingTransport) || transport.era !== 'stateless') return undefined;
  return { protocolVersion: STATELESS_PROTOCOL_VERSION, headerParameters: transport.headerParameters };
}

/** Ends a Streamable HTTP session politely (HTTP DELETE), without letting a dead server stall us. */
export async function endRemoteSession(transport: Transport): Promise<void> {
  if (!(transport instanceof NegotiatingTransport)) return;
  const http = transport.streamableHttp;
  if (http.sessionId === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, 1_000);
  });
  await Promise.race([http.terminateSession().catch(() => undefined), giveUp]);
  clearTimeout(timer);
}
