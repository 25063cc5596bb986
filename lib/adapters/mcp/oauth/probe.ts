/**
 * The first step of the MCP specification's discovery: an MCP request without a token, whose 401
 * names in WWW-Authenticate where the protected resource metadata is (`resource_metadata`, which
 * may be a custom location) and which scope the server wants. A server that answers without asking
 * for a token (some let `initialize` through) yields nothing, and discovery goes on from the
 * well-known locations.
 */
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CLIENT_INFO } from '../connect.ts';

export interface ProbedServer {
  url: string;
  type: 'http' | 'sse' | 'auto';
  headers: Record<string, string>;
}

interface Challenge {
  resourceMetadataUrl?: URL;
  scope?: string;
}

export async function probeChallenge(server: ProbedServer, fetch: FetchLike, signal?: AbortSignal): Promise<Challenge> {
  const response = server.type === 'sse'
    ? await fetch(server.url, { method: 'GET', headers: { ...server.headers, accept: 'text/event-stream' }, ...(signal ? { signal } : {}) })
    : await fetch(server.url, {
        method: 'POST',
        headers: { ...server.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
        }),
        ...(signal ? { signal } : {}),
      });
  await response.body?.cancel().catch(() => undefined);
  if (response.status !== 401 && response.status !== 403) {
    await endSession(server, response, fetch);
    return {};
  }
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
}

/** A server that let the probe initialize a session is told it is over. */
async function endSession(server: ProbedServer, response: Response, fetch: FetchLike): Promise<void> {
  const sessionId = response.headers.get('mcp-session-id');
  if (!sessionId) return;
  await fetch(server.url, { method: 'DELETE', headers: { ...server.headers, 'mcp-session-id': sessionId }, signal: AbortSignal.timeout(2_000) })
    .then((answer) => answer.body?.cancel())
    .catch(() => undefined);
}
